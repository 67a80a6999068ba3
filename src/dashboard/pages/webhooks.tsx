// Webhooks: the workspace's endpoints (docs/webhooks.md), each with its recent delivery attempts (time, event,
// answer status, latency), a "send test event" button and a "resend" per attempt; adding an endpoint and rotating
// its secret show the signing secret this once (rendered, never redirected to). A disabled endpoint is flagged,
// with a button that enables it again.
// The rules live in the webhook service; this page only calls it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { type FormBody, field, fields, formError } from '../forms.js';
import { Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { actorOf, workspaceOf } from '../session.js';
import { setFlash } from '../session-cookie.js';
import {
  AddForm,
  EndpointCard,
  type FormValues,
  NewSecret,
  PATH,
  type Shown,
  type ShownSecret,
} from './webhook-views.js';

interface WebhooksPageData {
  workspaceName: string;
  endpoints: Shown[];
  secret?: ShownSecret;
  error?: string;
  values?: FormValues;
}

function WebhooksPage(data: WebhooksPageData): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Webhooks">
      <div class="pv-settings">
        <hgroup>
          <h1>Webhooks</h1>
          <p>
            Signed events (Standard Webhooks) to your backend when a verification of{' '}
            <strong>{data.workspaceName}</strong> changes.
          </p>
        </hgroup>
        {data.secret && <NewSecret shown={data.secret} />}
        <section id="endpoints" aria-labelledby="endpoints-title">
          <h2 id="endpoints-title">Endpoints</h2>
          {data.endpoints.length === 0 ? (
            <p class="muted">No endpoint yet: add one below.</p>
          ) : (
            data.endpoints.map((shown) => <EndpointCard shown={shown} csrf={ctx.csrf} />)
          )}
        </section>
        <AddForm csrf={ctx.csrf} error={data.error} values={data.values} />
      </div>
    </Layout>
  );
}

export function registerWebhookPages(app: FastifyInstance, services: Services): void {
  const { webhooks } = services;
  const page = async (workspace: { id: string; name: string }, extra: Partial<WebhooksPageData> = {}) => {
    const endpoints = await webhooks.listEndpoints(workspace.id);
    return WebhooksPage({
      workspaceName: workspace.name,
      endpoints: await Promise.all(
        endpoints.map(async (endpoint) => ({
          endpoint,
          attempts: await webhooks.listAttempts(workspace.id, endpoint.id),
        })),
      ),
      ...extra,
    });
  };

  /** A change that answers with a confirmation and the list again. */
  async function redirectAfter(reply: FastifyReply, text: string, anchor: string) {
    setFlash(reply, { kind: 'ok', text });
    return reply.redirect(`${PATH}#${anchor}`);
  }

  app.get('/webhooks', async (request, reply) =>
    renderPage(request, reply, await page(workspaceOf(request))),
  );

  app.post('/webhooks', async (request: FastifyRequest, reply) => {
    const workspace = workspaceOf(request);
    const body = request.body as FormBody;
    const values = { url: field(body, 'url'), events: fields(body, 'events') };
    try {
      const added = await webhooks.addEndpoint(
        {
          workspaceId: workspace.id,
          url: values.url,
          events: values.events.length === 0 ? undefined : values.events,
        },
        actorOf(request),
      );
      // Rendered, not redirected: this response is the only place the secret ever appears.
      return renderPage(
        request,
        reply,
        await page(workspace, { secret: { endpointId: added.id, secret: added.secret, rotated: false } }),
        { flash: { kind: 'ok', text: `Endpoint ${added.id} added.` } },
      );
    } catch (err) {
      const status = formError(err);
      return renderPage(request, reply, await page(workspace, { error: (err as Error).message, values }), {
        status,
      });
    }
  });

  app.post('/webhooks/:id/rotate', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const rotated = await webhooks.rotateSecret(id, actorOf(request), workspace.id);
    return renderPage(
      request,
      reply,
      await page(workspace, { secret: { endpointId: id, secret: rotated.secret, rotated: true } }),
      { flash: { kind: 'ok', text: `New signing secret for ${id}.` } },
    );
  });

  app.post('/webhooks/:id/remove', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const removed = await webhooks.removeEndpoint(id, actorOf(request), workspace.id);
    return redirectAfter(reply, `Endpoint ${removed.url} removed.`, 'endpoints');
  });

  app.post('/webhooks/:id/enable', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const enabled = await webhooks.enableEndpoint(id, actorOf(request), workspace.id);
    return redirectAfter(reply, `Endpoint ${enabled.url} enabled: new events are sent to it again.`, id);
  });

  app.post('/webhooks/:id/test', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const sent = await webhooks.sendTest(workspace.id, id, actorOf(request));
    return redirectAfter(reply, `Test event ${sent.event_id} queued: its attempt appears below.`, id);
  });

  app.post('/webhooks/attempts/:id/resend', async (request, reply) => {
    const workspace = workspaceOf(request);
    const { id } = request.params as { id: string };
    const sent = await webhooks.resend(workspace.id, id, actorOf(request));
    return redirectAfter(reply, `Event ${sent.event_id} queued again.`, 'endpoints');
  });
}
