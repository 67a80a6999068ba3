// The OpenAPI 3.1 `webhooks` of the API document: one entry per event type, the request phone-verify makes to
// an endpoint (docs/webhooks.md). The body's `data` is the Verification component the API's GET answers with.
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { Type } from 'typebox';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../vocabulary/webhook-events.js';

const WHEN: Record<WebhookEventType, string> = {
  'verification.created': 'A send was accepted: the verification exists and its code is on its way.',
  'verification.delivery_updated':
    'The delivery changed without ending the verification: the code was handed over to the carrier, or a carrier reported a failure for a verification that had already finished.',
  'verification.verified': 'The right code was checked.',
  'verification.failed': 'The last allowed attempt was wrong.',
  'verification.expired':
    'The code ran out of time (recorded by the sweeper within seconds of expires_at, or by the first read after it).',
  'verification.undelivered':
    'The code could not be delivered: the hand-over was rejected, or the carrier reported failure.',
  'verification.canceled': 'The verification was canceled, by the API or by a newer send to the same number.',
};

const HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event id: the same on every retry. Deduplicate on it.',
    example: 'msg_0VbvA1b2C3d4E5f6G7h8I9j0',
  },
  {
    name: 'webhook-timestamp',
    description: 'Seconds since the epoch when this attempt was signed.',
    example: '1764000000',
  },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures (two for 24 hours after a secret rotation). Verify with a Standard Webhooks library.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** How each event's example `data` differs from the pending verification the document's examples show. */
function exampleChanges(
  verification: Record<string, unknown>,
): Record<WebhookEventType, Record<string, unknown>> {
  const delivery = verification.delivery as Record<string, unknown>;
  return {
    'verification.created': {},
    'verification.delivery_updated': {},
    'verification.verified': { status: 'verified', attempts: 1, verified_at: '2026-11-24T22:11:42.318Z' },
    'verification.failed': { status: 'failed', attempts: 5 },
    'verification.expired': { status: 'expired' },
    'verification.undelivered': {
      status: 'undelivered',
      delivery: {
        ...delivery,
        ok: false,
        error_code: '30006',
        error_message: 'Landline or unreachable carrier',
      },
    },
    'verification.canceled': { status: 'canceled' },
  };
}

/** `verification.delivery_updated` -> `verificationDeliveryUpdated`. */
const operationId = (type: string) =>
  type.replace(/[._]([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** The `webhooks` member of the document, as @fastify/swagger takes it (OpenAPI 3.1). */
type Webhooks = Extract<
  NonNullable<FastifyDynamicSwaggerOptions['openapi']>,
  { webhooks?: unknown }
>['webhooks'];

export function webhookDocs(verificationExample: Record<string, unknown>): Webhooks {
  const changes = exampleChanges(verificationExample);
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: operationId(type),
          summary: type,
          tags: ['Webhooks'],
          description: `${WHEN[type]} Signed per Standard Webhooks (standardwebhooks.com). Ordering is not guaranteed.`,
          parameters: HEADERS.map((h) => ({
            name: h.name,
            in: 'header',
            required: true,
            description: h.description,
            schema: { type: 'string', examples: [h.example] },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: Type.Object({
                  type: Type.Literal(type),
                  timestamp: Type.String({ format: 'date-time', description: 'When the change happened' }),
                  data: Type.Ref('#/components/schemas/Verification'),
                }),
                example: {
                  type,
                  timestamp: '2026-11-24T22:10:00.412Z',
                  data: { ...verificationExample, ...changes[type] },
                },
              },
            },
          },
          responses: {
            '2XX': {
              description: 'Received. Any 2xx is success; anything else (or no answer in 10 s) is retried.',
            },
          },
        },
      },
    ]),
  ) as Webhooks;
}
