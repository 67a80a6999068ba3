// PLACEHOLDER: replaced by the Overview page.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { Layout } from '../layout.js';
import { renderPage } from '../render.js';

export function registerOverviewPage(app: FastifyInstance, _services: Services): void {
  app.get('/', async (request, reply) =>
    renderPage(request, reply, (ctx) => (
      <Layout ctx={ctx} title="Overview">
        <h1>Overview</h1>
      </Layout>
    )),
  );
}
