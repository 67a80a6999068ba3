// Health for load balancers and orchestrators. /healthz: the process is alive (no database call, so a
// database outage does not get healthy processes restarted). /readyz: the database answers and every
// migration is applied, so traffic goes only where it can be served. Operator-facing: hidden from the public
// API description.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import type { ErrorResponses } from './responses.js';

export interface Health {
  /** Throws unless the database answers and every migration is applied; names the database otherwise. */
  check(): Promise<{ database: string }>;
}

export function healthRoutes(health: Health, errors: ErrorResponses): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Health'];
    app.get(
      '/healthz',
      {
        schema: {
          summary: 'Liveness',
          hide: true,
          tags,
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: database reachable, migrations applied',
          hide: true,
          tags,
          response: {
            200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }),
            ...errors('unavailable'),
          },
        },
      },
      async (request) => {
        let database: string;
        try {
          ({ database } = await health.check());
        } catch (err) {
          request.log.warn({ err }, 'not ready');
          throw new AppError('unavailable', 'Not ready: the database is unreachable or not migrated.', {
            retry_after: 2,
          });
        }
        return { status: 'ready' as const, database };
      },
    );
  };
}
