// Carriers: the workspace's carrier accounts (what each sends from and the callback URL to set at the carrier),
// adding one per carrier the service knows (the forms are its descriptor's fields), rotating its credentials and removing it. The rules live in the carrier service; no
// credential is ever read back for this page, so none can appear in it. The API address (base URL) is shown, never
// taken: it is the operator's (carrier-fields.ts, refuseBaseUrl).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FC } from 'hono/jsx';
import { type CarrierAccountListing, carrierOfType } from '../../carrier-accounts/service.js';
import { callbackUrlOf, unreachableByCarriers } from '../../delivery/callback-url.js';
import { type AnyCarrier, findCarrier } from '../../delivery/carriers/descriptor.js';
import { AppError } from '../../errors.js';
import type { Services } from '../../services.js';
import { ConfirmedAction } from '../components.js';
import { type FormBody, formError } from '../forms.js';
import { BASE, Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { actorOf, workspaceOf } from '../session.js';
import { setFlash } from '../session-cookie.js';
import {
  carrierTypeOf,
  credentialsFrom,
  describeFailure,
  echoedValues,
  refuseBaseUrl,
} from './carrier-fields.js';
import {
  AddAccountForms,
  type CarrierFormFailure,
  FailureNote,
  PATH,
  RotateForm,
  TestCredentialsForm,
} from './carrier-forms.js';
import { testedNotice } from './carrier-test-notice.js';

interface CarriersPageData {
  carriers: readonly AnyCarrier[];
  workspaceName: string;
  accounts: CarrierAccountListing[];
  publicUrl: string;
  failure?: CarrierFormFailure;
}

const Numbers: FC<{ numbers: string[] }> = ({ numbers }) =>
  numbers.length === 0 ? (
    <span class="muted">
      None yet: choose this account for a number on the <a href={`${BASE}/settings#numbers`}>Workspace</a>{' '}
      page.
    </span>
  ) : (
    <span>
      {numbers.map((n, i) => (
        <>
          {i > 0 && ', '}
          <code>{n}</code>
        </>
      ))}
    </span>
  );

/** Its URL and what to set at the carrier (the descriptor's hint, as docs/carriers.md says). */
const CallbackUrl: FC<{
  carrier: AnyCarrier | undefined;
  account: CarrierAccountListing;
  publicUrl: string;
}> = ({ carrier, account, publicUrl }) => {
  const url = carrier ? callbackUrlOf([carrier], publicUrl, account) : null;
  if (url === null) return <span class="muted">{carrier?.callbackHint ?? 'None.'}</span>;
  const id = `callback-${account.id}`;
  const unreachable = unreachableByCarriers(url);
  return (
    <>
      {unreachable && (
        <p class="flash flash-error callback-unreachable" role="alert">
          <strong>The carrier cannot reach this URL:</strong> {unreachable}. Its delivery reports will never
          arrive, so codes stay "handed over" until they expire. Set <code>PUBLIC_URL</code> to the address at
          which the internet reaches this service (docs/carriers.md).
        </p>
      )}
      <div class="copy-group">
        <input id={id} readonly value={url} aria-label={`Callback URL of ${account.id}`} />
        <button type="button" class="secondary small-button" data-copy={`#${id}`}>
          Copy
        </button>
      </div>
      <small class="muted">{carrier?.callbackHint}</small>
    </>
  );
};

const AccountCard: FC<{
  carrier: AnyCarrier | undefined;
  account: CarrierAccountListing;
  publicUrl: string;
  csrf: string;
  failure?: CarrierFormFailure;
}> = ({ carrier, account: a, publicUrl, csrf, failure }) => {
  const mine = failure?.accountId === a.id ? failure : undefined;
  const label = carrier?.label ?? a.type;
  return (
    <article class="carrier-account" id={a.id} aria-labelledby={`${a.id}-title`}>
      <h3 id={`${a.id}-title`}>
        {`${label} account `}
        <code>{a.id}</code>
      </h3>
      {(mine?.form === 'remove' || mine?.form === 'test') && (
        <FailureNote failure={mine} id={`${mine.form}-${a.id}-error`} />
      )}
      <dl class="facts">
        {carrier?.baseUrl !== false && (
          <>
            <dt>API</dt>
            <dd>
              {a.base_url ? (
                <>
                  <code>{a.base_url}</code> <small class="muted">(set by the operator with the CLI)</small>
                </>
              ) : (
                <span>The carrier's own API</span>
              )}
            </dd>
          </>
        )}
        <dt>Sends from</dt>
        <dd>
          <Numbers numbers={a.numbers} />
        </dd>
        <dt>Callback URL</dt>
        <dd>
          <CallbackUrl carrier={carrier} account={a} publicUrl={publicUrl} />
        </dd>
        <dt>Added</dt>
        <dd>
          <time
            datetime={a.created_at}
          >{`${a.created_at.slice(0, 10)} ${a.created_at.slice(11, 16)} UTC`}</time>
        </dd>
      </dl>
      {carrier?.probe && <TestCredentialsForm csrf={csrf} label={label} account={a} />}
      {carrier && (
        <RotateForm
          csrf={csrf}
          carrier={carrier}
          account={a}
          failure={mine?.form === 'rotate' ? mine : undefined}
        />
      )}
      <ConfirmedAction
        action={`${PATH}/${encodeURIComponent(a.id)}/remove`}
        confirm={`Remove the ${label} account ${a.id}? Its credentials are deleted.`}
        label="Remove account"
        describe={`Remove ${label} account ${a.id}`}
        csrf={csrf}
      />
    </article>
  );
};

function CarriersPage(data: CarriersPageData): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Carriers">
      <div class="pv-settings">
        <hgroup>
          <h1>Carriers</h1>
          <p>
            Carrier accounts send the codes of <strong>{data.workspaceName}</strong> to real phones. A number
            without one uses the development provider: its codes go to the Inbox and reach no phone.
          </p>
        </hgroup>
        <section id="accounts" aria-labelledby="accounts-title">
          <h2 id="accounts-title">Accounts</h2>
          {data.accounts.length === 0 ? (
            <p class="muted">This workspace has no carrier account yet: every code goes to the Inbox.</p>
          ) : (
            data.accounts.map((a) => (
              <AccountCard
                carrier={findCarrier(data.carriers, a.type)}
                account={a}
                publicUrl={data.publicUrl}
                csrf={ctx.csrf}
                failure={data.failure}
              />
            ))
          )}
        </section>
        <AddAccountForms
          carriers={data.carriers}
          csrf={ctx.csrf}
          failure={data.failure?.form === 'add' ? data.failure : undefined}
        />
      </div>
    </Layout>
  );
}

export function registerCarrierPages(app: FastifyInstance, services: Services): void {
  const { carriers, carrierTypes } = services;
  const page = async (workspace: { id: string; name: string }, failure?: CarrierFormFailure) =>
    CarriersPage({
      carriers: carrierTypes,
      workspaceName: workspace.name,
      accounts: await carriers.listAccounts(workspace.id),
      publicUrl: services.publicUrl,
      failure,
    });

  /** Runs one change: on success a confirmation and back to the list; on failure the page again, with why. */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    form: Omit<CarrierFormFailure, 'message' | 'field'>,
    act: (workspaceId: string) => Promise<{ text: string; anchor: string; kind?: 'ok' | 'error' }>,
  ) {
    const workspace = workspaceOf(request);
    try {
      const done = await act(workspace.id);
      setFlash(reply, { kind: done.kind ?? 'ok', text: done.text });
      return reply.redirect(`${PATH}#${done.anchor}`);
    } catch (err) {
      const status = formError(err);
      const carrier = form.type === undefined ? undefined : findCarrier(carrierTypes, form.type);
      const failure = { ...form, ...describeFailure(err as AppError, carrier) };
      return renderPage(request, reply, await page(workspace, failure), { status });
    }
  }

  /** An account of the session's workspace: any other id is answered like an unknown one. */
  async function accountOf(workspaceId: string, id: string): Promise<CarrierAccountListing> {
    const account = (await carriers.listAccounts(workspaceId)).find((a) => a.id === id);
    if (!account) throw new AppError('not_found', 'There is no such carrier account in this workspace.');
    return account;
  }

  app.get('/carriers', async (request, reply) =>
    renderPage(request, reply, await page(workspaceOf(request))),
  );

  app.post('/carriers', async (request, reply) => {
    const body = request.body as FormBody;
    const carrier = carrierTypeOf(carrierTypes, body);
    const { type, label } = carrier;
    const form = { form: 'add' as const, type, values: echoedValues(body, carrier) };
    return change(request, reply, form, async (workspaceId) => {
      refuseBaseUrl(body);
      const added = await carriers.addAccount(
        { workspaceId, type, credentials: credentialsFrom(body, carrier) },
        actorOf(request),
      );
      return { text: `${label} account ${added.id} added.`, anchor: added.id };
    });
  });

  app.post('/carriers/:id/rotate', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const account = await accountOf(workspace.id, id);
    const carrier = carrierOfType(carrierTypes, account.type);
    const body = request.body as FormBody;
    const form = {
      form: 'rotate' as const,
      type: account.type,
      accountId: id,
      values: echoedValues(body, carrier),
    };
    return change(request, reply, form, async (workspaceId) => {
      refuseBaseUrl(body);
      // No base URL given: the account keeps the one the operator set.
      await carriers.rotateCredentials(
        workspaceId,
        id,
        { credentials: credentialsFrom(body, carrier) },
        actorOf(request),
      );
      return { text: `New credentials saved for ${carrier.label} account ${id}.`, anchor: id };
    });
  });

  app.post('/carriers/:id/test', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const account = await accountOf(workspace.id, id);
    const label = findCarrier(carrierTypes, account.type)?.label ?? account.type;
    const form = { form: 'test' as const, type: account.type, accountId: id, values: {} };
    return change(request, reply, form, async (workspaceId) => {
      const tested = await carriers.testCredentials(workspaceId, id, actorOf(request));
      return { ...testedNotice(label, tested), anchor: id };
    });
  });

  app.post('/carriers/:id/remove', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const account = await accountOf(workspace.id, id);
    const label = findCarrier(carrierTypes, account.type)?.label ?? account.type;
    const form = { form: 'remove' as const, type: account.type, accountId: id, values: {} };
    return change(request, reply, form, async (workspaceId) => {
      await carriers.removeAccount(workspaceId, id, actorOf(request));
      return { text: `${label} account ${id} removed.`, anchor: 'accounts' };
    });
  });
}
