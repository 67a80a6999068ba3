// Settings > Security > API keys: list, create (the key shown this once), revoke, and how to rotate.
// A new key is only ever in the body of the POST's own response: never in a redirect URL, a flash cookie or a
// later page, because the service keeps nothing but its hash.
import type { FastifyInstance } from 'fastify';
import type { FC } from 'hono/jsx';
import { invalidField } from '../../errors.js';
import { SCOPES } from '../../keys/scopes.js';
import { type CreatedKey, type KeyView, MAX_ACTIVE_KEYS } from '../../keys/service.js';
import type { Services } from '../../services.js';
import { ConfirmedAction } from '../components.js';
import { type FormBody, field, fields, formError } from '../forms.js';
import { BASE, Csrf, Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { actorOf, workspaceOf } from '../session.js';
import { setFlash } from '../session-cookie.js';

const PATH = `${BASE}/settings/security/api-keys`;
const EXPIRY_DAYS = [7, 30, 90, 365] as const;
const SCOPE_HINTS: Record<string, string> = { otp: 'Send, check, read and cancel verifications (/v1/otp).' };

interface FormValues {
  name: string;
  scopes: string[];
  expires: string;
  /** live or test (the form's switch); the key service refuses anything else. */
  mode: string;
}

const EMPTY_FORM: FormValues = { name: '', scopes: ['otp'], expires: '', mode: 'live' };

/** The switch's two positions, and what each means. */
const MODE_CHOICES = [
  { mode: 'live', label: 'Live', hint: 'Codes go to real phones through your carriers.' },
  {
    mode: 'test',
    label: 'Test',
    hint: 'A pv_test_… key: codes go to the test inbox only, never to a carrier; test numbers take their fixed code.',
  },
] as const;

/** A key's mode as lists show it: test keys stand out. */
const ModeBadge: FC<{ mode: string }> = ({ mode }) => (
  <span class={`badge badge-mode-${mode}`}>{mode === 'test' ? 'test' : 'live'}</span>
);

interface KeysPageData {
  workspaceName: string;
  keys: KeyView[];
  created?: CreatedKey;
  error?: string;
  values?: FormValues;
}

/** A readable UTC time in a <time> element carrying the exact timestamp. */
const When: FC<{ at: string | null; none?: string }> = ({ at, none = '—' }) =>
  at === null ? (
    <span class="muted">{none}</span>
  ) : (
    <time datetime={at} title={at}>
      {`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`}
    </time>
  );

function expiresInSeconds(value: string): number | undefined {
  if (value === '') return undefined;
  const days = Number(value);
  if (!EXPIRY_DAYS.includes(days as (typeof EXPIRY_DAYS)[number])) {
    throw invalidField('expires', `must be never or ${EXPIRY_DAYS.join(', ')} days`);
  }
  return days * 86_400;
}

const NewKey: FC<{ created: CreatedKey }> = ({ created }) => (
  <article class="key-created" aria-labelledby="new-key-title">
    <h2 id="new-key-title">Your new API key “{created.name}”</h2>
    <p class="warning" role="alert">
      <strong>Copy this key now: it cannot be shown again.</strong> phone-verify keeps only a fingerprint of
      it. If it is lost, create a new key and revoke this one.
    </p>
    <label for="new-api-key">API key</label>
    <div class="copy-group">
      <input id="new-api-key" class="secret-once" readonly value={created.key} autocomplete="off" />
      <button type="button" data-copy="#new-api-key">
        Copy
      </button>
    </div>
    <p class="small muted">
      Send it in the <code>Authorization</code> header: <code>{`Bearer pv_${created.mode}_…`}</code>. Keep it
      on your server, never in an app or web page.
    </p>
    {created.mode === 'test' && (
      <p class="small">
        This is a <strong>test key</strong>: its codes go to the test inbox only (never to a phone), and its
        verifications are apart from live ones. Turn on “Test data” in the log, the overview or the inbox to
        see them.
      </p>
    )}
  </article>
);

const KeyTable: FC<{ keys: KeyView[]; csrf: string }> = ({ keys, csrf }) =>
  keys.length === 0 ? (
    <p class="muted">This workspace has no API keys yet. Create one below to call the API.</p>
  ) : (
    <div class="table-wrap">
      <table class="striped stack-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Mode</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr>
              <td data-label="Name">{k.name}</td>
              <td data-label="Prefix">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Mode">
                <ModeBadge mode={k.mode} />
              </td>
              <td data-label="Scopes">
                {k.scopes.length > 0 ? k.scopes.join(', ') : <span class="muted">none</span>}
              </td>
              <td data-label="Created">
                <When at={k.created_at} />
              </td>
              <td data-label="Last used">
                <When at={k.last_used_at} none="never" />
              </td>
              <td data-label="Expires">
                <When at={k.expires_at} none="never" />
              </td>
              <td data-label="Status">
                <span class={`badge badge-${k.status}`}>{k.status}</span>
              </td>
              <td>
                {k.status === 'active' && (
                  <ConfirmedAction
                    action={`${PATH}/${encodeURIComponent(k.id)}/revoke`}
                    confirm={`Revoke the key “${k.name}”? Requests that use it fail from now on.`}
                    label="Revoke"
                    describe={`Revoke ${k.name}`}
                    csrf={csrf}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

const CreateForm: FC<{ csrf: string; values: FormValues; full: boolean; error?: string }> = ({
  csrf,
  values,
  full,
  error,
}) => (
  <article aria-labelledby="create-title">
    <h2 id="create-title">Create API key</h2>
    {full && (
      <p class="warning" id="key-limit">
        This workspace has {MAX_ACTIVE_KEYS} active keys, the most it may hold. Revoke a key you no longer
        use, then create the new one.
      </p>
    )}
    {error && (
      <p class="flash flash-error" role="alert">
        {error}
      </p>
    )}
    <form method="post" action={PATH}>
      <Csrf token={csrf} />
      <fieldset disabled={full} aria-describedby={full ? 'key-limit' : undefined}>
        <label>
          Name
          <input
            name="name"
            required
            maxlength={100}
            value={values.name}
            placeholder="e.g. Production web app"
            aria-describedby="key-name-hint"
          />
        </label>
        <small id="key-name-hint">Say where the key is used, so you know which one to revoke later.</small>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label>
              <input type="checkbox" name="scopes" value={scope} checked={values.scopes.includes(scope)} />
              <code>{scope}</code> <span class="muted small">{SCOPE_HINTS[scope] ?? ''}</span>
            </label>
          ))}
        </fieldset>
        <fieldset class="mode-switch">
          <legend>Mode</legend>
          {MODE_CHOICES.map((choice) => (
            <label>
              <input
                type="radio"
                name="mode"
                value={choice.mode}
                checked={values.mode === choice.mode}
                aria-describedby={`key-mode-${choice.mode}`}
              />
              {choice.label}{' '}
              <span class="muted small" id={`key-mode-${choice.mode}`}>
                {choice.hint}
              </span>
            </label>
          ))}
        </fieldset>
        <label>
          Expires
          <select name="expires">
            <option value="" selected={values.expires === ''}>
              Never
            </option>
            {EXPIRY_DAYS.map((days) => (
              <option value={String(days)} selected={values.expires === String(days)}>
                {`In ${days} days`}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Create API key</button>
      </fieldset>
    </form>
  </article>
);

const Rotation: FC = () => (
  <section aria-labelledby="rotate-title">
    <h2 id="rotate-title">Rotating a key</h2>
    <p>Replace a key without downtime (and at once if it may have leaked):</p>
    <ol class="steps">
      <li>
        <strong>Create the new key</strong> here and copy it.
      </li>
      <li>
        <strong>Deploy it</strong>: put it in your servers' configuration and check that requests succeed (its
        “Last used” time appears in the table).
      </li>
      <li>
        <strong>Revoke the old key.</strong> Revocation takes effect on the very next request.
      </li>
    </ol>
  </section>
);

function KeysPage(data: KeysPageData): Page {
  const active = data.keys.filter((k) => k.status === 'active').length;
  const full = active >= MAX_ACTIVE_KEYS;
  return (ctx) => (
    <Layout ctx={ctx} title="API keys">
      <div class="pv-settings">
        <hgroup>
          <h1>API keys</h1>
          <p>
            Keys let your servers call the phone-verify API for <strong>{data.workspaceName}</strong>.{' '}
            {`${active} of ${MAX_ACTIVE_KEYS} active keys in use.`}
          </p>
        </hgroup>
        {data.created && <NewKey created={data.created} />}
        <section aria-labelledby="keys-title">
          <h2 id="keys-title" class="visually-hidden">
            Keys
          </h2>
          <KeyTable keys={data.keys} csrf={ctx.csrf} />
        </section>
        <div class="grid keys-columns">
          <CreateForm csrf={ctx.csrf} values={data.values ?? EMPTY_FORM} full={full} error={data.error} />
          <Rotation />
        </div>
      </div>
    </Layout>
  );
}

export function registerApiKeyPages(app: FastifyInstance, services: Pick<Services, 'keys'>): void {
  const { keys } = services;
  const page = async (workspace: { id: string; name: string }, extra: Partial<KeysPageData> = {}) =>
    KeysPage({ workspaceName: workspace.name, keys: await keys.listKeys(workspace.id), ...extra });

  app.get('/settings/security/api-keys', async (request, reply) =>
    renderPage(request, reply, await page(workspaceOf(request))),
  );

  app.post('/settings/security/api-keys', async (request, reply) => {
    const workspace = workspaceOf(request);
    const body = request.body as FormBody;
    const values = {
      name: field(body, 'name'),
      scopes: fields(body, 'scopes'),
      expires: field(body, 'expires'),
      mode: field(body, 'mode') || 'live',
    };
    try {
      const created = await keys.createKey(
        {
          workspaceId: workspace.id,
          name: values.name,
          scopes: values.scopes,
          expiresInSeconds: expiresInSeconds(values.expires),
          mode: values.mode,
        },
        actorOf(request),
      );
      // Rendered, not redirected: this response is the only place the key ever appears.
      return renderPage(request, reply, await page(workspace, { created }), {
        flash: { kind: 'ok', text: `API key “${created.name}” created.` },
      });
    } catch (err) {
      const status = formError(err);
      return renderPage(request, reply, await page(workspace, { error: (err as Error).message, values }), {
        status,
      });
    }
  });

  app.post('/settings/security/api-keys/:id/revoke', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const key = await keys.revokeKey(workspace.id, id, actorOf(request));
    setFlash(reply, { kind: 'ok', text: `API key “${key.name}” revoked: requests that use it now fail.` });
    return reply.redirect(PATH);
  });
}
