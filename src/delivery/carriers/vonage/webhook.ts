// Vonage status callbacks: the Messages API status webhook (SMS) and the Voice API event webhook (calls).
// Both are signed the same way (developer.vonage.com "Signed webhooks" for Messages, "Voice API Webhooks
// Reference" > Signed Webhooks / "Decoding signed webhooks"): Authorization: Bearer <JWT>, HS256 with the
// account's signature secret, claims iat, jti, iss "Vonage", api_key, application_id and payload_hash, the
// SHA-256 (hex) of the request body. Vonage notes that in the rare case of an internal error it may send an
// unsigned callback and retries on a 5xx, so the route answers an unsigned callback 503 (src/delivery/status-webhooks.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { StatusReport } from '../../provider.js';
import { verifyHs256Jwt } from './jwt.js';

/** Callbacks older than this are refused, so a captured one cannot be replayed later. */
export const MAX_CALLBACK_AGE_MS = 5 * 60 * 1000;
/** Tolerated clock difference for tokens stamped slightly in our future. */
const CLOCK_SKEW_MS = 60 * 1000;

export interface VonageCallbackRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received: the payload hash covers these bytes. */
  rawBody: string | Buffer;
}

export interface VonageWebhookSecrets {
  /** The account's signature secret (Dashboard > Settings), not the API secret. */
  signatureSecret: string;
  /** When given, the token's api_key claim must name this account. */
  apiKey?: string;
}

export function verifyVonageSignature(
  request: VonageCallbackRequest,
  secrets: VonageWebhookSecrets,
  nowMs: number = Date.now(),
): boolean {
  const header = headerValue(request.headers, 'authorization');
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1] || !secrets.signatureSecret) return false;
  const claims = verifyHs256Jwt(match[1], secrets.signatureSecret);
  if (!claims) return false;

  const iat = claims.iat;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return false;
  const age = nowMs - iat * 1000;
  if (age > MAX_CALLBACK_AGE_MS || age < -CLOCK_SKEW_MS) return false;
  if (typeof claims.exp === 'number' && claims.exp * 1000 < nowMs - CLOCK_SKEW_MS) return false;
  if (secrets.apiKey !== undefined && claims.api_key !== undefined && claims.api_key !== secrets.apiKey) {
    return false;
  }

  // The signature covers the claims only; payload_hash ties them to this very body.
  const claimed = claims.payload_hash;
  if (typeof claimed !== 'string') return false;
  const actual = createHash('sha256').update(request.rawBody).digest('hex');
  const given = Buffer.from(claimed.toLowerCase(), 'utf8');
  return given.length === actual.length && timingSafeEqual(given, Buffer.from(actual, 'utf8'));
}

function headerValue(headers: VonageCallbackRequest['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const VOICE_IN_PROGRESS = new Set(['started', 'ringing', 'answered']);
const VOICE_FAILED = new Set(['failed', 'rejected', 'busy', 'timeout', 'unanswered', 'cancelled']);

/**
 * A Messages API status (message_uuid: submitted, delivered, rejected, undeliverable) or a Voice API event
 * (uuid: started, ringing, answered, completed, failed, rejected, busy, timeout, unanswered, cancelled) as a
 * StatusReport; undefined for anything else (other voice events such as input or record, foreign bodies).
 */
export function parseVonageStatus(body: unknown): StatusReport | undefined {
  const event = asObject(body);
  if (!event) return undefined;
  const status = typeof event.status === 'string' ? event.status : undefined;
  if (!status) return undefined;

  if (typeof event.message_uuid === 'string' && event.message_uuid) {
    const providerId = event.message_uuid;
    if (status === 'submitted') return { providerId, state: 'accepted' };
    if (status === 'delivered' || status === 'read') return { providerId, state: 'delivered' };
    if (status === 'rejected' || status === 'undeliverable') {
      const error = asObject(event.error);
      return {
        providerId,
        state: 'failed',
        carrierCode: error ? errorCode(error) : status,
        carrierMessage: error ? errorWords(error) : status,
      };
    }
    return undefined;
  }

  if (typeof event.uuid === 'string' && event.uuid) {
    const providerId = event.uuid;
    if (VOICE_IN_PROGRESS.has(status)) return { providerId, state: 'accepted' };
    if (status === 'completed') return { providerId, state: 'delivered' };
    if (VOICE_FAILED.has(status)) {
      const detail = typeof event.detail === 'string' ? event.detail : undefined;
      return { providerId, state: 'failed', carrierCode: status, carrierMessage: detail ?? status };
    }
  }
  return undefined;
}

/** The Messages API error's number (the fragment of its type URL, e.g. …/messages#1050), else the type. */
export function errorCode(error: Record<string, unknown>): string {
  const type = typeof error.type === 'string' ? error.type : '';
  const fragment = type.includes('#') ? type.slice(type.lastIndexOf('#') + 1) : '';
  return fragment || type || 'unknown';
}

export function errorWords(error: Record<string, unknown>): string {
  const title = typeof error.title === 'string' ? error.title : undefined;
  const detail = typeof error.detail === 'string' ? error.detail : undefined;
  return [title, detail].filter(Boolean).join(': ') || 'no description';
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  let parsed = value;
  if (typeof value === 'string' || Buffer.isBuffer(value)) {
    try {
      parsed = JSON.parse(value.toString());
    } catch {
      return undefined;
    }
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}
