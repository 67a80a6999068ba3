// buildApp: the HTTP application over the services, without listening, so tests inject requests.
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './config.js';
import { dashboard } from './dashboard/plugin.js';
import { webhookRoutes } from './delivery/status-webhooks.js';
import { AppError } from './errors.js';
import { apiDocs } from './http/api-docs.js';
import { clientErrorAnswer } from './http/client-errors.js';
import {
  closeConnectionsWithUnreadBodies,
  limitConnections,
  requestTimeoutOptions,
} from './http/connections.js';
import { healthRoutes } from './http/health.js';
import { frameworkErrorAnswer, problemTypes, registerProblemHandling } from './http/problem.js';
import { OneLineRequestLog } from './http/request-log.js';
import { errorResponses } from './http/responses.js';
import { refuseUnsafeText } from './http/safe-text.js';
import { newId } from './ids.js';
import { authenticateRequests } from './keys/auth-hook.js';
import { pingRoutes } from './keys/routes.js';
import { metricsRoute } from './metrics/serve.js';
import { API_SCHEMAS, openapiOptions } from './openapi.js';
import type { Services } from './services.js';
import { answerTwilioFrameworkError } from './twilio-api/errors.js';
import { twilioRoutes } from './twilio-api/routes.js';
import { verificationRoutes } from './verification/routes.js';

export const BODY_LIMIT_BYTES = 16 * 1024;

/** Secrets never reach the logs: keys, codes and credentials are censored wherever they appear. */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'body.code',
  'body.Code',
  'code',
  'key',
  '*.key',
  'secret',
  '*.secret',
];

export interface AppOptions {
  services: Services;
  logger?: FastifyServerOptions['logger'];
  /** NODE_ENV=production: the dashboard warns where numbers have no carrier. */
  production?: boolean;
  /** REQUEST_TIMEOUT_MS: the time a client has to send a whole request (default 30 s). */
  requestTimeoutMs?: number;
  /** MAX_CONNECTIONS: the connections the server holds at most once listening (default: no limit). */
  maxConnections?: number;
  /**
   * The process serves its metrics (METRICS_PORT or METRICS_TOKEN set): requests are timed for them, and with a
   * token GET /metrics is served on this app for `Authorization: Bearer <token>`. Absent: neither.
   */
  metrics?: { token: string | undefined };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { services } = options;
  // Each code's problem `type` (its section of the errors reference), made once: the error path only reads it.
  const types = problemTypes(services.publicUrl);
  const answerFrameworkError = frameworkErrorAnswer(types);
  const app = Fastify({
    // Always a logger (silent unless given): Fastify reports each finished request to the log controller, which
    // counts it for the metrics, only where one is configured.
    logger: options.logger ?? { level: 'silent' },
    bodyLimit: BODY_LIMIT_BYTES,
    ...requestTimeoutOptions(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    // Unreadable and timed-out requests: a problem body, and a log line without the request's bytes.
    clientErrorHandler: clientErrorAnswer(types),
    requestIdHeader: false,
    // From the id generator's pooled randomness: no system call per request.
    genReqId: () => newId('req'),
    logController: new OneLineRequestLog(options.metrics ? services.metrics : undefined),
    ajv: {
      // Strict input: no coercion ("6" is not an integer), unknown fields are errors, every error is named.
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, useDefaults: true },
    },
    // Closing is answered by our own hook below, as a problem body with Retry-After.
    return503OnClosing: false,
    // A URL the router cannot decode, or a path parameter past its limit: problem bodies, not Fastify's own.
    frameworkErrors: (error, request, reply) =>
      request.url.startsWith('/twilio/')
        ? answerTwilioFrameworkError(error, request, reply)
        : answerFrameworkError(error, request, reply),
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (options.maxConnections !== undefined) limitConnections(app.server, options.maxConnections, app.log);
  closeConnectionsWithUnreadBodies(app);

  // JSON is the only body format: anything else is a 415, never a 400 or a silent parse.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('principal', null);
  // Callback-style hooks on every request: no promise per hook.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    // No answer leaves before the writes it may report (its own, or others' it read) are durable; a group that
    // could not commit turns the answer into a 503. An error answer reports nothing done, so it need not wait
    // (and the 503 of a lost group is not failed again by that same group).
    const commit = reply.statusCode >= 400 ? undefined : services.committed();
    if (commit === undefined) done(null, payload);
    else commit.then(() => done(null, payload), done);
  });
  registerProblemHandling(app, types);
  // Before any route is registered, so that every route (API, webhooks, dashboard) inherits it.
  refuseUnsafeText(app);

  // Graceful shutdown: once closing starts, new requests (on kept-alive connections) get 503 while in-flight
  // requests finish.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) {
      done(new AppError('unavailable', 'The service is shutting down; retry shortly.', { retry_after: 1 }));
      return;
    }
    done();
  });

  // The named schemas first: every route below, and the OpenAPI document, refer to them.
  for (const schema of API_SCHEMAS) app.addSchema(schema);
  await app.register(swagger, openapiOptions(services.publicUrl));
  await app.register(apiDocs, { publicUrl: services.publicUrl });
  const errors = errorResponses(types);

  await app.register(
    async (v1) => {
      v1.addHook(
        'onRequest',
        authenticateRequests({ keys: services.keys, limiter: services.requestLimiter }),
      );
      await v1.register(pingRoutes(errors));
      await v1.register(verificationRoutes(services.verifications, services.idempotency, errors));
    },
    { prefix: '/v1' },
  );

  // The Twilio Verify v2 subset (docs/twilio-compatibility.md): its own body format, auth and error bodies.
  await app.register(
    twilioRoutes({
      keys: services.keys,
      limiter: services.requestLimiter,
      verifications: services.verifications,
      workspaces: services.workspaces,
      publicUrl: services.publicUrl,
    }),
    { prefix: '/twilio' },
  );

  await app.register(healthRoutes(services.health, errors));
  const metricsToken = options.metrics?.token;
  if (metricsToken !== undefined) metricsRoute(app, services.metrics.registry, metricsToken);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(dashboard, {
    prefix: '/dashboard',
    services,
    secureCookies: services.publicUrl.startsWith('https://'),
    production: options.production ?? false,
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard'));
  await app.register(webhookRoutes, { prefix: '/webhooks', services });

  return app;
}
