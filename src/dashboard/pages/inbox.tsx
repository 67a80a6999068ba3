// PLACEHOLDER: replaced by the Inbox page.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { Layout } from '../layout.js';
import { renderPage } from '../render.js';

export function registerInboxPages(app: FastifyInstance, _services: Services): void {
  app.get('/inbox', async (request, reply) =>
    renderPage(request, reply, (ctx) => (
      <Layout ctx={ctx} title="Inbox">
        <h1>Inbox</h1>
      </Layout>
    )),
  );
}
