// PLACEHOLDER: replaced by the Verifications page.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { Layout } from '../layout.js';
import { renderPage } from '../render.js';

export function registerVerificationPages(app: FastifyInstance, _services: Services): void {
  app.get('/verifications', async (request, reply) =>
    renderPage(request, reply, (ctx) => (
      <Layout ctx={ctx} title="Verifications">
        <h1>Verifications</h1>
      </Layout>
    )),
  );
}
