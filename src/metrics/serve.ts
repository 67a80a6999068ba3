// Where Prometheus scrapes: a listener of its own (METRICS_PORT, off the public port), and/or GET /metrics on
// the main port behind a bearer token (METRICS_TOKEN). With neither set, the metrics are not served at all.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { AppError } from '../errors.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** GET /metrics on the app, answered only to `Authorization: Bearer <token>` (compared in constant time). */
export function metricsRoute(app: FastifyInstance, registry: Registry, token: string): void {
  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const presented = /^Bearer (.+)$/i.exec(header)?.[1] ?? '';
    if (!timingSafeEqual(digest(presented), expected)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new AppError('invalid_metrics_token', 'GET /metrics needs Authorization: Bearer METRICS_TOKEN.');
    }
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** A listener serving GET /metrics alone (404 for anything else), for scrapers on a private network. */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  // Scrapers keep connections open; a closing process must not wait for them.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
