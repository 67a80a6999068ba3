// Workspace settings: the name (the default brand), the numbers and what each can send, the countries codes may
// go to, and the per-workspace limits. The rules live in the workspace service; this page only shows and asks.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FC } from 'hono/jsx';
import type { Services } from '../../services.js';
import { BRAND_NAME_MAX } from '../../workspaces/brand-name.js';
import {
  type Country,
  NUMBER_TYPES,
  type NumberType,
  SUPPORTED_COUNTRIES,
} from '../../workspaces/phone-number.js';
import {
  LIMIT_RANGES,
  type LimitName,
  type NumberView,
  type WorkspaceSettings,
} from '../../workspaces/service.js';
import { type FormBody, field, fields, formError } from '../forms.js';
import { BASE, Csrf, Layout } from '../layout.js';
import { workspaceOf } from '../plugin.js';
import { type Page, renderPage } from '../render.js';
import { setFlash } from '../session-cookie.js';

const PATH = `${BASE}/settings`;

const COUNTRY_NAMES: Record<Country, string> = {
  AU: 'Australia',
  US: 'United States',
  CA: 'Canada',
  GB: 'United Kingdom',
  NZ: 'New Zealand',
};

const TYPE_LABELS: Record<NumberType, string> = {
  mobile: 'Mobile',
  landline: 'Landline',
  local_rate: 'Local rate (13, 1300)',
  toll_free: 'Toll-free',
};

const LIMIT_FIELDS: { name: LimitName; label: string; hint: string }[] = [
  { name: 'send_limit', label: 'Codes per number', hint: 'How many codes one phone number may be sent' },
  { name: 'send_window_seconds', label: 'Window (seconds)', hint: '…within this many seconds' },
  {
    name: 'request_limit_per_minute',
    label: 'API requests per minute',
    hint: 'For the whole workspace, all keys together',
  },
];

type Section = 'name' | 'numbers' | 'countries' | 'limits';

/** A failed form: which section it belongs to, why, and what was typed (shown again). */
interface FormFailure {
  section: Section;
  message: string;
  values: Record<string, string | string[]>;
}

interface SettingsData {
  settings: WorkspaceSettings;
  numbers: NumberView[];
  failure?: FormFailure;
}

const fmt = (n: number) => n.toLocaleString('en-US');

const ErrorNote: FC<{ failure?: FormFailure; section: Section }> = ({ failure, section }) =>
  failure?.section === section ? (
    <p class="flash flash-error" role="alert">
      {failure.message}
    </p>
  ) : null;

const Can: FC<{ yes: boolean; what: string }> = ({ yes, what }) =>
  yes ? (
    <span class="can can-yes">
      <span aria-hidden="true">✓</span> <span class="visually-hidden">{what}: </span>yes
    </span>
  ) : (
    <span class="can can-no">
      <span aria-hidden="true">✗</span> <span class="visually-hidden">{what}: </span>no
    </span>
  );

/** What the workspace cannot send, said plainly where it cannot. */
const Capability: FC<{ numbers: NumberView[] }> = ({ numbers }) => {
  if (numbers.length === 0) {
    return (
      <p class="warning" id="capability">
        This workspace has no number, so nothing can be sent: add a number below. SMS needs a mobile number;
        voice works from any number.
      </p>
    );
  }
  if (!numbers.some((n) => n.type === 'mobile')) {
    return (
      <p class="warning" id="capability">
        SMS needs a mobile number: this workspace has none, so only voice codes can be sent.
      </p>
    );
  }
  return null;
};

const NameSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const typed =
    data.failure?.section === 'name' ? String(data.failure.values.name ?? '') : data.settings.name;
  return (
    <article id="name" aria-labelledby="name-title">
      <h2 id="name-title">Name</h2>
      <ErrorNote failure={data.failure} section="name" />
      <form method="post" action={`${PATH}/name`}>
        <Csrf token={csrf} />
        <label>
          Workspace name
          <input name="name" required maxlength={BRAND_NAME_MAX} value={typed} aria-describedby="name-hint" />
          <small id="name-hint">
            The brand in every code message (“Your {data.settings.name} code is …”) unless a request gives{' '}
            <code>brand_name</code>. Plain text: no links, domains or e-mail addresses.
          </small>
        </label>
        <button type="submit">Save name</button>
      </form>
    </article>
  );
};

const NumbersSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'numbers' ? data.failure.values : {};
  const typedType = String(failed.type ?? '');
  return (
    <article id="numbers" aria-labelledby="numbers-title">
      <h2 id="numbers-title">Numbers</h2>
      <p class="muted">
        Codes are sent from these numbers. Voice works from any number; SMS needs a mobile number.
      </p>
      <Capability numbers={data.numbers} />
      <ErrorNote failure={data.failure} section="numbers" />
      {data.numbers.length > 0 && (
        <div class="table-wrap">
          <table class="striped stack-table">
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Country</th>
                <th scope="col">Type</th>
                <th scope="col">Voice</th>
                <th scope="col">SMS</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.numbers.map((n) => (
                <tr>
                  <td data-label="Number">
                    <code>{n.number}</code>
                  </td>
                  <td data-label="Country">{n.country}</td>
                  <td data-label="Type">{TYPE_LABELS[n.type] ?? n.type}</td>
                  <td data-label="Voice">
                    <Can yes what="Voice" />
                  </td>
                  <td data-label="SMS">
                    <Can yes={n.type === 'mobile'} what="SMS" />
                  </td>
                  <td>
                    <form
                      method="post"
                      action={`${PATH}/numbers/${encodeURIComponent(n.id)}/remove`}
                      class="inline-form"
                      data-confirm={`Remove ${n.number}? Codes will no longer be sent from it.`}
                    >
                      <Csrf token={csrf} />
                      <button
                        type="submit"
                        class="secondary outline small-button"
                        aria-label={`Remove ${n.number}`}
                      >
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form method="post" action={`${PATH}/numbers`} class="add-number">
        <Csrf token={csrf} />
        <h3>Add a number</h3>
        <div class="grid">
          <label>
            Number
            <input
              name="number"
              required
              inputmode="tel"
              placeholder="+61491570156"
              value={String(failed.number ?? '')}
              aria-describedby="number-hint"
            />
            <small id="number-hint">In international form, starting with +.</small>
          </label>
          <label>
            Type
            <select name="type" aria-describedby="type-hint">
              <option value="" selected={typedType === ''}>
                Detect from the number
              </option>
              {NUMBER_TYPES.map((t) => (
                <option value={t} selected={typedType === t}>
                  {TYPE_LABELS[t]}
                </option>
              ))}
            </select>
            <small id="type-hint">
              US and Canadian numbers need a type: it cannot be told from the number.
            </small>
          </label>
        </div>
        <button type="submit">Add number</button>
      </form>
    </article>
  );
};

const CountriesSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'countries';
  const chosen = failed ? (data.failure?.values.countries as string[]) : data.settings.allowed_countries;
  return (
    <article id="countries" aria-labelledby="countries-title">
      <h2 id="countries-title">Destination countries</h2>
      <ErrorNote failure={data.failure} section="countries" />
      <form method="post" action={`${PATH}/countries`}>
        <Csrf token={csrf} />
        <fieldset>
          <legend>Codes may be sent to numbers of</legend>
          {SUPPORTED_COUNTRIES.map((c) => (
            <label>
              <input type="checkbox" name="countries" value={c} checked={chosen.includes(c)} />
              {COUNTRY_NAMES[c]} <span class="muted small">({c})</span>
            </label>
          ))}
          <small>Sends to any other country are refused with unsupported_country. Choose at least one.</small>
        </fieldset>
        <button type="submit">Save countries</button>
      </form>
    </article>
  );
};

const LimitsSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'limits' ? data.failure.values : undefined;
  return (
    <article id="limits" aria-labelledby="limits-title">
      <h2 id="limits-title">Limits</h2>
      <ErrorNote failure={data.failure} section="limits" />
      <form method="post" action={`${PATH}/limits`}>
        <Csrf token={csrf} />
        {LIMIT_FIELDS.map((f) => {
          const range = LIMIT_RANGES[f.name];
          return (
            <label>
              {f.label}
              <input
                type="number"
                name={f.name}
                required
                min={range.min}
                max={range.max}
                step={1}
                value={failed ? String(failed[f.name] ?? '') : String(data.settings.limits[f.name])}
              />
              <small>{`${f.hint} (${fmt(range.min)} to ${fmt(range.max)}).`}</small>
            </label>
          );
        })}
        <button type="submit">Save limits</button>
      </form>
    </article>
  );
};

function SettingsPage(data: SettingsData): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Workspace">
      <div class="pv-settings">
        <hgroup>
          <h1>{data.settings.name}</h1>
          <p>Workspace settings</p>
        </hgroup>
        <NameSection data={data} csrf={ctx.csrf} />
        <NumbersSection data={data} csrf={ctx.csrf} />
        <div class="grid settings-columns">
          <CountriesSection data={data} csrf={ctx.csrf} />
          <LimitsSection data={data} csrf={ctx.csrf} />
        </div>
      </div>
    </Layout>
  );
}

export function registerSettingsPages(app: FastifyInstance, services: Services): void {
  const { workspaces } = services;

  const load = async (workspaceId: string, failure?: FormFailure): Promise<SettingsData> => ({
    settings: await workspaces.getSettings(workspaceId),
    numbers: await workspaces.listNumbers(workspaceId),
    failure,
  });

  /** Runs one change: on success a confirmation and back to its section; on failure the form again, with why. */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    form: { section: Section; values: FormFailure['values'] },
    act: (workspaceId: string) => Promise<string>,
  ) {
    const workspace = workspaceOf(request);
    try {
      setFlash(reply, { kind: 'ok', text: await act(workspace.id) });
      return reply.redirect(`${PATH}#${form.section}`);
    } catch (err) {
      const status = formError(err);
      const failure = { ...form, message: (err as Error).message };
      return renderPage(request, reply, SettingsPage(await load(workspace.id, failure)), { status });
    }
  }

  app.get('/settings', async (request, reply) =>
    renderPage(request, reply, SettingsPage(await load(workspaceOf(request).id))),
  );

  app.post('/settings/name', async (request, reply) => {
    const name = field(request.body as FormBody, 'name');
    return change(request, reply, { section: 'name', values: { name } }, async (workspaceId) => {
      const saved = await workspaces.renameWorkspace({ workspaceId, name });
      return `Workspace renamed to “${saved.name}”.`;
    });
  });

  app.post('/settings/numbers', async (request, reply) => {
    const body = request.body as FormBody;
    const values = { number: field(body, 'number'), type: field(body, 'type') };
    return change(request, reply, { section: 'numbers', values }, async (workspaceId) => {
      const added = await workspaces.addNumber({
        workspaceId,
        number: values.number,
        type: values.type === '' ? undefined : values.type,
      });
      return `Number ${added.number} added (${TYPE_LABELS[added.type]}).`;
    });
  });

  app.post('/settings/numbers/:id/remove', async (request, reply) => {
    const { id } = request.params as { id: string };
    return change(request, reply, { section: 'numbers', values: {} }, async (workspaceId) => {
      const number = (await workspaces.listNumbers(workspaceId)).find((n) => n.id === id);
      await workspaces.removeNumber({ workspaceId, numberId: id });
      return `Number ${number?.number ?? id} removed.`;
    });
  });

  app.post('/settings/countries', async (request, reply) => {
    const countries = fields(request.body as FormBody, 'countries');
    return change(request, reply, { section: 'countries', values: { countries } }, async (workspaceId) => {
      const saved = await workspaces.setAllowedCountries({ workspaceId, countries });
      return `Codes may now be sent to ${saved.allowed_countries.join(', ')}.`;
    });
  });

  app.post('/settings/limits', async (request, reply) => {
    const body = request.body as FormBody;
    const values = Object.fromEntries(LIMIT_FIELDS.map((f) => [f.name, field(body, f.name)]));
    return change(request, reply, { section: 'limits', values }, async (workspaceId) => {
      // An empty or non-numeric field becomes NaN, which the service refuses with the field's range.
      const limits = Object.fromEntries(
        LIMIT_FIELDS.map((f) => [f.name, values[f.name]?.trim() ? Number(values[f.name]) : Number.NaN]),
      ) as Record<LimitName, number>;
      await workspaces.setLimits({ workspaceId, limits });
      return 'Limits saved. They apply from the next request.';
    });
  });
}
