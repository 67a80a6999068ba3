// PLACEHOLDER: replaced by the Workspace page.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { Layout } from '../layout.js';
import { renderPage } from '../render.js';

export function registerSettingsPages(app: FastifyInstance, _services: Services): void {
  app.get('/settings', async (request, reply) =>
    renderPage(request, reply, (ctx) => (
      <Layout ctx={ctx} title="Workspace">
        <h1>Workspace</h1>
      </Layout>
    )),
  );
}
