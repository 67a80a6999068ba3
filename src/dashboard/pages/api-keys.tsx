// PLACEHOLDER: replaced by the API keys page.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { Layout } from '../layout.js';
import { renderPage } from '../render.js';

export function registerApiKeyPages(app: FastifyInstance, _services: Services): void {
  app.get('/settings/security/api-keys', async (request, reply) =>
    renderPage(request, reply, (ctx) => (
      <Layout ctx={ctx} title="API keys">
        <h1>API keys</h1>
      </Layout>
    )),
  );
}
