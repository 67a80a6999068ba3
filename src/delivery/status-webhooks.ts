// Carrier status callbacks: POST /webhooks/<type>/:accountId, one route per carrier whose descriptor has a
// webhook. No API key: each request must carry the carrier's signature under that account's own secret,
// checked over the body exactly as received. Unknown account (or one of another type) -> 404; unsigned,
// tampered, stale or wrongly keyed -> 403, logged, nothing changes (an unsigned callback of a carrier that may
// send genuine ones unsigned gets 503 instead, so the carrier sends it again). Every signed request is answered
// 204, whatever it reports, so the carrier stops retrying.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { CarrierService } from '../carrier-accounts/service.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { unsafeTextPath } from '../http/safe-text.js';
import type { AnyCarrier, CarrierWebhook, WebhookRequest } from './carriers/descriptor.js';
import type { CarrierStatusReports } from './reports.js';

/** Status callbacks are small; this leaves room for a verbose carrier without inviting large uploads. */
export const WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;

/** What the webhook routes need: the carriers, their accounts, where reports go, the clock and PUBLIC_URL. */
export interface WebhookOptions {
  services: {
    clock: Clock;
    carrierTypes: readonly AnyCarrier[];
    carriers: Pick<CarrierService, 'getAccount'>;
    statusReports: CarrierStatusReports;
    publicUrl: string;
  };
}

const ROUTE_SCHEMA = {
  hide: true,
  params: {
    type: 'object',
    properties: { accountId: { type: 'string', maxLength: 100 } },
    required: ['accountId'],
  },
} as const;

export const webhookRoutes: FastifyPluginAsync<WebhookOptions> = async (app, options) => {
  const { services } = options;
  const clock = services.clock;
  const { statusReports } = services;
  // PUBLIC_URL: the origin carriers call, which some signatures cover (never taken from Host).
  const publicUrl = services.publicUrl.replace(/\/+$/, '');

  // Scoped to this plugin: the raw text is kept, since every signature covers the exact bytes received.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/x-www-form-urlencoded'],
    { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );

  for (const carrier of services.carrierTypes) {
    if (carrier.webhook) route(app, carrier, carrier.webhook);
  }

  function route(scope: FastifyInstance, carrier: AnyCarrier, webhook: CarrierWebhook<unknown>): void {
    const { type, label } = carrier;
    scope.post<{ Params: { accountId: string }; Body: string | undefined }>(
      `/${type}/:accountId`,
      { schema: ROUTE_SCHEMA, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
      async (request, reply) => {
        const { accountId } = request.params;
        const account = await services.carriers.getAccount(accountId);
        if (account?.type !== type) {
          throw new AppError('not_found', `No ${label} account ${accountId}.`);
        }
        const rawBody = request.body ?? '';
        // The URL the carrier called: our public URL, plus any query string the callback URL carried.
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        const signed: WebhookRequest = {
          url: `${publicUrl}/webhooks/${type}/${account.id}${query}`,
          headers: request.headers,
          rawBody,
          now: clock.now(),
        };
        if (!webhook.verify(account, signed)) {
          if (webhook.unsignedMayBeGenuine?.(signed)) {
            request.log.warn({ carrier: type, accountId }, 'carrier callback refused for now: unsigned');
            throw new AppError('unavailable', 'Unsigned callback refused; send it again, signed.', {
              retry_after: 60,
            });
          }
          request.log.warn({ carrier: type, accountId }, 'carrier callback refused: signature invalid');
          throw new AppError('invalid_signature', 'The request is not signed by this carrier account.');
        }
        const report = webhook.parse(rawBody);
        if (report) {
          // Text the store cannot hold (http/safe-text.ts) names no delivery of ours: like an unknown id, it is
          // acknowledged and changes nothing (PostgreSQL would fail the look-up, and the carrier retry it).
          const outcome =
            unsafeTextPath(report) === undefined
              ? await statusReports.apply({ workspaceId: account.workspaceId, carrier: label, report })
              : 'unknown_verification';
          request.log.info(
            { carrier: type, accountId, providerId: report.providerId, state: report.state, outcome },
            'carrier status report',
          );
        }
        return reply.code(204).send();
      },
    );
  }
};
