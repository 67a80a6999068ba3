// Carrier status callbacks: POST /webhooks/<type>/:accountId, one route per carrier whose descriptor has a
// webhook. No API key: each request must carry the carrier's signature under that account's own secret,
// checked over the body exactly as received. Unknown account (or one of another type) -> 404; unsigned,
// tampered, stale or wrongly keyed -> 403, logged, nothing changes (an unsigned callback of a carrier that may
// send genuine ones unsigned gets 503 instead, so the carrier sends it again; so does a callback for an account
// whose credentials this server's secret cannot open). Every signed request is answered 204, whatever it
// reports, so the carrier stops retrying.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { CredentialsUnreadableError } from '../carrier-accounts/credentials.js';
import type { CarrierAccount, CarrierService } from '../carrier-accounts/service.js';
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

  /**
   * The account, or undefined. Credentials this process's secret cannot open (the secret changed, or another
   * process sealed them with its own) leave the signature uncheckable: 503, logged, so the carrier sends the
   * callback again, and it is applied once the secret is put right.
   */
  async function readAccount(
    id: string,
    warn: (reason: string) => void,
  ): Promise<CarrierAccount | undefined> {
    try {
      return await services.carriers.getAccount(id);
    } catch (err) {
      if (!(err instanceof CredentialsUnreadableError)) throw err;
      warn(
        "the account's credentials do not open with this server's secret (see PHONE_VERIFY_PREVIOUS_SECRET)",
      );
      throw new AppError('unavailable', 'This callback cannot be checked right now; send it again later.', {
        retry_after: 60,
      });
    }
  }

  function route(scope: FastifyInstance, carrier: AnyCarrier, webhook: CarrierWebhook<unknown>): void {
    const { type, label } = carrier;
    scope.post<{ Params: { accountId: string }; Body: string | undefined }>(
      `/${type}/:accountId`,
      { schema: ROUTE_SCHEMA, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
      async (request, reply) => {
        const { accountId } = request.params;
        const account = await readAccount(accountId, (reason) =>
          request.log.warn({ carrier: type, accountId }, `carrier callback refused for now: ${reason}`),
        );
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
