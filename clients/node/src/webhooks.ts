// verifyWebhook: proves a webhook came from phone-verify, now, unchanged (Standard Webhooks, docs/webhooks.md),
// with node:crypto alone, and returns its event typed from the document's `webhooks`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent, WebhookTestEvent } from './types.js';

/** Headers as Node (`req.headers`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the signature's timestamp may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time now in milliseconds (default Date.now()): for tests. */
  now?: number;
}

const SECRET_PREFIX = 'whsec_';
/** Seconds since the epoch, as the service writes them: digits only, no sign, no fraction. */
const TIMESTAMP = /^\d{1,12}$/;

function header(headers: WebhookHeaders, name: string): string {
  const value =
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : (Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1] ?? null);
  if (value === null || value === undefined || value === '')
    throw new WebhookVerificationError('missing_header', `The ${name} header is missing`);
  if (typeof value !== 'string')
    throw new WebhookVerificationError('invalid_header', `The ${name} header must be sent once`);
  return value;
}

function keyOf(secret: string): Buffer {
  if (typeof secret !== 'string')
    throw new WebhookVerificationError('invalid_secret', 'The secret must be a string');
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded))
    throw new WebhookVerificationError('invalid_secret', 'The secret is not a whsec_ signing secret');
  return key;
}

function bytesOf(payload: string | Uint8Array): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array)
    return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  // A parsed body (express.json()) cannot be verified: its bytes are gone.
  throw new TypeError('verifyWebhook: pass the raw body (a string or a Buffer), not parsed JSON');
}

/** Whether one of the header's space-separated `v1,<base64>` signatures is the expected one. */
function signatureMatches(signatureHeader: string, expected: Buffer): boolean {
  let matched = false;
  for (const part of signatureHeader.split(' ')) {
    const comma = part.indexOf(',');
    if (comma < 0 || part.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(part.slice(comma + 1), 'base64');
    // Every candidate is compared, in constant time: nothing about the expected signature leaks through timing.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}

/**
 * Verifies a webhook from phone-verify and returns its event. `payload` is the raw body exactly as received
 * (a string or a Buffer: `express.raw({ type: 'application/json' })`), `headers` the request's headers, `secret`
 * the endpoint's `whsec_…` signing secret. Throws WebhookVerificationError for anything that is not a genuine,
 * recent event: answer 400 and do not act on it. Deduplicate on the `webhook-id` header: a retry repeats it.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent | WebhookTestEvent {
  const body = bytesOf(payload);
  const key = keyOf(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!TIMESTAMP.test(timestamp))
    throw new WebhookVerificationError(
      'invalid_header',
      'The webhook-timestamp header is not a number of seconds',
    );
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const sentAt = Number(timestamp);
  if (sentAt < now - tolerance)
    throw new WebhookVerificationError('timestamp_too_old', 'The webhook is too old');
  if (sentAt > now + tolerance)
    throw new WebhookVerificationError('timestamp_too_new', 'The webhook is timestamped in the future');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  if (!signatureMatches(signatures, expected))
    throw new WebhookVerificationError('invalid_signature', 'No signature matches the secret');
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string')
    throw new WebhookVerificationError('invalid_payload', 'The body is not an event');
  return event as WebhookEvent | WebhookTestEvent;
}
