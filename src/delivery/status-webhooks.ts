// Carrier status callbacks: POST /webhooks/{twilio,telnyx,vonage}/:accountId. No API key: each request must
// carry the carrier's signature under that account's own secret, checked over the body exactly as received.
// Unknown account (or one of another type) -> 404; unsigned, tampered, stale or wrongly keyed -> 403, logged,
// nothing changes (an unsigned Vonage callback gets 503 instead, so Vonage sends it again). Every signed request is answered 204, whatever it reports, so the carrier stops retrying.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { CarrierAccount } from '../carrier-accounts/service.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { parseTelnyxStatus, verifyTelnyxSignature } from './carriers/telnyx/webhook.js';
import { parseTwilioStatus, verifyTwilioSignature } from './carriers/twilio/webhook.js';
import { parseVonageStatus, verifyVonageSignature } from './carriers/vonage/webhook.js';
import type { StatusReport } from './provider.js';

/** Status callbacks are small; this leaves room for a verbose carrier without inviting large uploads. */
export const WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;

export interface WebhookOptions {
  services: Services;
}

type Signed<T extends CarrierAccount['type']> = Extract<CarrierAccount, { type: T }>;

interface Carrier<T extends CarrierAccount['type']> {
  label: string;
  /**
   * Whether an unsigned callback may be the carrier's own, sent unsigned after an internal error: it is then
   * refused with a 503, which makes the carrier try again (signed), instead of a 403, which would lose it.
   */
  unsignedMayBeGenuine?(request: FastifyRequest): boolean;
  verify(account: Signed<T>, request: FastifyRequest, rawBody: string): boolean;
  parse(rawBody: string): StatusReport | undefined;
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
  // PUBLIC_URL: the origin carriers call, which Twilio's signature covers (never taken from Host).
  const publicUrl = services.publicUrl.replace(/\/+$/, '');

  // Scoped to this plugin: the raw text is kept, since every signature covers the exact bytes received.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/x-www-form-urlencoded'],
    { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );

  route(app, 'twilio', {
    label: 'Twilio',
    verify: (account, request, rawBody) => {
      // Twilio signs the URL it called: our public URL, plus any query string the callback URL carried.
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const url = `${publicUrl}/webhooks/twilio/${account.id}${query}`;
      return verifyTwilioSignature({ url, headers: request.headers, rawBody }, account.credentials);
    },
    parse: (rawBody) => parseTwilioStatus(rawBody),
  });

  route(app, 'telnyx', {
    label: 'Telnyx',
    verify: (account, request, rawBody) =>
      account.credentials.publicKey !== undefined &&
      verifyTelnyxSignature({
        headers: request.headers,
        rawBody,
        publicKey: account.credentials.publicKey,
        now: clock.now(),
      }),
    parse: (rawBody) => parseTelnyxStatus(rawBody),
  });

  route(app, 'vonage', {
    label: 'Vonage',
    // Vonage: "in the rare case of an internal error" a callback may come unsigned; it retries on a 5xx.
    unsignedMayBeGenuine: (request) => request.headers.authorization === undefined,
    verify: (account, request, rawBody) =>
      verifyVonageSignature(
        { headers: request.headers, rawBody },
        { signatureSecret: account.credentials.signatureSecret, apiKey: account.credentials.apiKey },
        clock.now(),
      ),
    parse: (rawBody) => parseVonageStatus(rawBody),
  });

  function route<T extends 'twilio' | 'telnyx' | 'vonage'>(
    scope: FastifyInstance,
    type: T,
    carrier: Carrier<T>,
  ): void {
    scope.post<{ Params: { accountId: string }; Body: string | undefined }>(
      `/${type}/:accountId`,
      { schema: ROUTE_SCHEMA, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
      async (request, reply) => {
        const { accountId } = request.params;
        const account = await services.carriers.getAccount(accountId);
        if (account?.type !== type) {
          throw new AppError('not_found', `No ${carrier.label} account ${accountId}.`);
        }
        const rawBody = request.body ?? '';
        if (!carrier.verify(account as Signed<T>, request, rawBody)) {
          if (carrier.unsignedMayBeGenuine?.(request)) {
            request.log.warn({ carrier: type, accountId }, 'carrier callback refused for now: unsigned');
            throw new AppError('unavailable', 'Unsigned callback refused; send it again, signed.', {
              retry_after: 60,
            });
          }
          request.log.warn({ carrier: type, accountId }, 'carrier callback refused: signature invalid');
          throw new AppError('invalid_signature', 'The request is not signed by this carrier account.');
        }
        const report = carrier.parse(rawBody);
        if (report) {
          const outcome = await statusReports.apply({
            workspaceId: account.workspaceId,
            carrier: carrier.label,
            report,
          });
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
