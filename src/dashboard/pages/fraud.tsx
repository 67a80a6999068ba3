// Fraud: the pumping guard's blocks (active and past, with the sends each refused) and a lift button for the
// active ones, the workspace's range settings and its allow list. Every rule is the fraud service's; this page only
// reads forms and shows what the service answers.
import type { FastifyInstance } from 'fastify';
import type { FC } from 'hono/jsx';
import type { Actor } from '../../audit/actor.js';
import type { BlockView } from '../../fraud/blocks.js';
import { FRAUD_DEFAULTS, FRAUD_RANGES, type FraudSettingName } from '../../fraud/rules.js';
import type { FraudSettingsView } from '../../fraud/settings.js';
import type { Services } from '../../services.js';
import { ConfirmedAction } from '../components.js';
import { type FormBody, field, formError } from '../forms.js';
import { BASE, Csrf, Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { actorOf, workspaceOf } from '../session.js';
import { setFlash } from '../session-cookie.js';

const PATH = `${BASE}/fraud`;

const SETTING_LABELS: Record<FraudSettingName, string> = {
  range_limit: 'Distinct numbers of one range before it is blocked',
  range_window_seconds: 'Within (seconds)',
  block_seconds: 'Block for (seconds)',
  conversion_sends: 'Conversion: finished codes judged per range',
  conversion_percent: 'Block a range when fewer of them are verified than (percent; 0: off)',
  country_conversion_sends: 'Conversion: finished codes judged per country',
  country_conversion_percent: 'Block a country when fewer of them are verified than (percent; 0: off)',
};

interface FraudPageData {
  workspaceName: string;
  blocks: BlockView[];
  settings: FraudSettingsView;
  error?: string;
}

const When: FC<{ at: string | null }> = ({ at }) =>
  at === null ? (
    <span class="muted">—</span>
  ) : (
    <time datetime={at} title={at}>
      {`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`}
    </time>
  );

const Blocks: FC<{ blocks: BlockView[]; csrf: string }> = ({ blocks, csrf }) =>
  blocks.length === 0 ? (
    <p class="muted">No range has been blocked.</p>
  ) : (
    <div class="table-wrap">
      <table class="striped stack-table">
        <thead>
          <tr>
            <th scope="col">Range or country</th>
            <th scope="col">Why</th>
            <th scope="col">Since</th>
            <th scope="col">Until</th>
            <th scope="col">Refused sends</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {blocks.map((b) => (
            <tr id={`block-${b.id}`}>
              <td data-label="Range or country">
                {b.country === null ? <code>{`${b.range}xxx`}</code> : `${b.country} (country)`}
              </td>
              <td data-label="Why">{b.why}</td>
              <td data-label="Since">
                <When at={b.created_at} />
              </td>
              <td data-label="Until">
                <When at={b.lifted_at ?? b.blocked_until} />
              </td>
              <td data-label="Refused sends">{String(b.refused)}</td>
              <td data-label="Status">
                {b.active ? 'active' : b.lifted_at ? `lifted by ${b.lifted_by ?? '?'}` : 'ended'}
              </td>
              <td>
                {b.active && (
                  <form method="post" action={`${PATH}/lift`} class="inline-form">
                    <Csrf token={csrf} />
                    {b.country === null ? (
                      <input type="hidden" name="range" value={b.range ?? ''} />
                    ) : (
                      <input type="hidden" name="country" value={b.country} />
                    )}
                    <button
                      type="submit"
                      class="secondary outline small-button"
                      aria-label={`Lift ${b.country ?? b.range}`}
                    >
                      Lift
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

const SettingsForm: FC<{ settings: FraudSettingsView; csrf: string }> = ({ settings, csrf }) => (
  <form method="post" action={`${PATH}/settings`}>
    <Csrf token={csrf} />
    {(Object.keys(FRAUD_DEFAULTS) as FraudSettingName[]).map((name) => (
      <label>
        {SETTING_LABELS[name]}
        <input
          name={name}
          type="number"
          required
          min={FRAUD_RANGES[name].min}
          max={FRAUD_RANGES[name].max}
          value={String(settings[name])}
        />
      </label>
    ))}
    <button type="submit">Save settings</button>
  </form>
);

const AllowList: FC<{ allow: string[]; csrf: string }> = ({ allow, csrf }) => (
  <>
    {allow.length === 0 ? (
      <p class="muted">No number or range is allowed past the guard.</p>
    ) : (
      <ul>
        {allow.map((prefix) => (
          <li>
            <code>{prefix}</code>{' '}
            <ConfirmedAction
              action={`${PATH}/allow/remove?prefix=${encodeURIComponent(prefix)}`}
              confirm={`Remove ${prefix} from the allow list?`}
              label="Remove"
              describe={`Remove ${prefix}`}
              csrf={csrf}
            />
          </li>
        ))}
      </ul>
    )}
    <form method="post" action={`${PATH}/allow`}>
      <Csrf token={csrf} />
      <label>
        Number or range (E.164 prefix)
        <input name="prefix" required maxlength={20} placeholder="+6141234" />
      </label>
      <button type="submit">Allow</button>
    </form>
  </>
);

function FraudPage(data: FraudPageData): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Fraud">
      <hgroup>
        <h1>Fraud</h1>
        <p>
          SMS pumping guard of <strong>{data.workspaceName}</strong>: a range (a number minus its last 3
          digits) sent codes to more than {data.settings.range_limit} distinct numbers within{' '}
          {data.settings.range_window_seconds} seconds is blocked for {data.settings.block_seconds} seconds.{' '}
          {data.settings.conversion_percent > 0
            ? `A range is also blocked when fewer than ${data.settings.conversion_percent}% of its last ${data.settings.conversion_sends} finished codes were verified (judged about once a minute).`
            : 'The conversion signal per range is off.'}{' '}
          {data.settings.country_conversion_percent > 0
            ? `A whole country is blocked when fewer than ${data.settings.country_conversion_percent}% of its last ${data.settings.country_conversion_sends} finished codes were verified.`
            : 'The conversion signal per country is off.'}
        </p>
      </hgroup>
      {data.error && (
        <p class="flash flash-error" role="alert">
          {data.error}
        </p>
      )}
      <section aria-labelledby="blocks-title">
        <h2 id="blocks-title">Blocks</h2>
        <Blocks blocks={data.blocks} csrf={ctx.csrf} />
      </section>
      <div class="grid">
        <section aria-labelledby="settings-title">
          <h2 id="settings-title">Settings</h2>
          <SettingsForm settings={data.settings} csrf={ctx.csrf} />
        </section>
        <section aria-labelledby="allow-title">
          <h2 id="allow-title">Allow list</h2>
          <AllowList allow={data.settings.allow} csrf={ctx.csrf} />
        </section>
      </div>
    </Layout>
  );
}

/** A whole-number field as the service takes it: digits only, else NaN (which the service refuses, naming it). */
const wholeField = (body: FormBody, name: string) => {
  const value = field(body, name);
  return /^[0-9]{1,12}$/.test(value) ? Number(value) : Number.NaN;
};

export function registerFraudPages(app: FastifyInstance, services: Pick<Services, 'fraud'>): void {
  const { fraud } = services;
  const page = async (workspace: { id: string; name: string }, error?: string) =>
    FraudPage({
      workspaceName: workspace.name,
      blocks: await fraud.listBlocks(workspace.id),
      settings: await fraud.getSettings(workspace.id),
      error,
    });

  app.get('/fraud', async (request, reply) => renderPage(request, reply, await page(workspaceOf(request))));

  /** Runs a form action; success flashes and redirects, a refusal shows the page again under its status. */
  function action(path: string, run: (workspaceId: string, body: FormBody, by: Actor) => Promise<string>) {
    app.post(path, async (request, reply) => {
      const workspace = workspaceOf(request);
      try {
        const text = await run(workspace.id, request.body as FormBody, actorOf(request));
        setFlash(reply, { kind: 'ok', text });
        return reply.redirect(PATH);
      } catch (err) {
        const status = formError(err);
        return renderPage(request, reply, await page(workspace, (err as Error).message), { status });
      }
    });
  }

  action('/fraud/settings', async (id, body, by) => {
    const given = Object.fromEntries(
      (Object.keys(FRAUD_DEFAULTS) as FraudSettingName[]).map((name) => [name, wholeField(body, name)]),
    );
    await fraud.setSettings(id, given, by);
    return 'Pumping guard settings saved.';
  });
  action('/fraud/allow', async (id, body, by) => {
    const { allow } = await fraud.allow(id, field(body, 'prefix'), by);
    return `Allow list: ${allow.length} entries.`;
  });
  app.post('/fraud/allow/remove', async (request, reply) => {
    const workspace = workspaceOf(request);
    const prefix = (request.query as { prefix?: unknown }).prefix;
    try {
      await fraud.disallow(workspace.id, prefix, actorOf(request));
      setFlash(reply, { kind: 'ok', text: 'Removed from the allow list.' });
      return reply.redirect(PATH);
    } catch (err) {
      const status = formError(err);
      return renderPage(request, reply, await page(workspace, (err as Error).message), { status });
    }
  });
  action('/fraud/lift', async (id, body, by) => {
    // A country's block posts its country, a range's its range (the Blocks table's hidden field).
    if (field(body, 'country') !== '') {
      const { country } = await fraud.liftCountry(id, field(body, 'country'), by);
      return `The block of ${country} is lifted.`;
    }
    const { range } = await fraud.lift(id, field(body, 'range'), by);
    return `The block of ${range} is lifted.`;
  });
}
