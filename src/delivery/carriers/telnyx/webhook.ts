// Telnyx status callbacks: signature verification and parsing.
//
// Signature (developers.telnyx.com webhook fundamentals; the callbacks' OpenAPI headers): every webhook carries
// `telnyx-timestamp` (Unix seconds) and `telnyx-signature-ed25519` (base64 Ed25519 signature of
// `${timestamp}|${rawBody}`), verified with the account's public key (Mission Control, Keys & Credentials,
// base64 of the raw 32-byte key). Bodies: messaging events are JSON
// { data: { event_type: 'message.sent' | 'message.finalized', payload: { id, to: [{ status }], errors } } };
// TeXML call status callbacks are form-encoded { CallSid, CallStatus, ErrorCode?, ErrorMessage? }; Call Control
// events are JSON { data: { event_type: 'call.*', payload: { call_control_id, hangup_cause } } }.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { StatusReport } from '../../provider.js';

/** Older (or further in the future) than this, a signed request is refused as a possible replay. */
export const TELNYX_SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface TelnyxSignatureInput {
  /** Request headers as Node gives them (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received: the signature covers these bytes, not re-serialised JSON. */
  rawBody: string | Buffer;
  /** The account's Ed25519 public key, base64 of the raw 32 bytes. */
  publicKey: string;
  /** Current time in ms (the injected clock); defaults to Date.now(). */
  now?: number;
}

function header(headers: TelnyxSignatureInput['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function publicKeyFrom(base64: string): KeyObject | undefined {
  const raw = Buffer.from(base64, 'base64');
  if (raw.length !== 32) return undefined;
  try {
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/**
 * True only for a request Telnyx signed with the account's key within the last five minutes. Unsigned,
 * tampered, stale and wrongly keyed requests are all false. Ed25519 verification compares no secret, so it
 * leaks nothing by timing.
 */
export function verifyTelnyxSignature(input: TelnyxSignatureInput): boolean {
  const timestamp = header(input.headers, 'telnyx-timestamp');
  const signature = header(input.headers, 'telnyx-signature-ed25519');
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  const now = input.now ?? Date.now();
  if (Math.abs(now - Number(timestamp) * 1000) > TELNYX_SIGNATURE_TOLERANCE_MS) return false;
  const sig = Buffer.from(signature, 'base64');
  if (sig.length !== 64) return false;
  const key = publicKeyFrom(input.publicKey);
  if (!key) return false;
  const body = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  const signed = Buffer.concat([Buffer.from(`${timestamp}|`, 'utf8'), body]);
  try {
    return verify(null, signed, key, sig);
  } catch {
    return false;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;

/** Accepts the parsed body (JSON object or form fields) or the raw text of either. */
function toObject(body: unknown): Obj | undefined {
  if (Buffer.isBuffer(body)) return toObject(body.toString('utf8'));
  if (typeof body !== 'string') return isObj(body) ? body : undefined;
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return isObj(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

const MESSAGE_FAILED = new Set(['sending_failed', 'delivery_failed']);
const CALL_FAILED = new Set(['busy', 'no-answer', 'failed', 'canceled']);

function withCarrier(
  report: StatusReport,
  code: string | undefined,
  words: string | undefined,
): StatusReport {
  return {
    ...report,
    ...(code !== undefined ? { carrierCode: code } : {}),
    ...(words !== undefined ? { carrierMessage: words } : {}),
  };
}

function parseMessage(eventType: string, payload: Obj): StatusReport | undefined {
  // message.received is an inbound message, not news of ours.
  if (eventType !== 'message.sent' && eventType !== 'message.finalized') return undefined;
  const providerId = str(payload.id);
  if (!providerId) return undefined;
  const to = Array.isArray(payload.to) ? payload.to : [];
  const status = str(isObj(to[0]) ? to[0].status : undefined) ?? '';
  const error = Array.isArray(payload.errors) && isObj(payload.errors[0]) ? payload.errors[0] : undefined;
  const code = str(error?.code);
  const words = str(error?.detail) ?? str(error?.title);
  if (status === 'delivered') return { providerId, state: 'delivered' };
  if (MESSAGE_FAILED.has(status)) return withCarrier({ providerId, state: 'failed' }, code, words ?? status);
  // message.sent, or finalized as delivery_unconfirmed: handed on, no verdict from the phone.
  return { providerId, state: 'accepted' };
}

function parseCallControl(eventType: string, payload: Obj): StatusReport | undefined {
  const providerId = str(payload.call_control_id);
  if (!providerId) return undefined;
  if (eventType === 'call.initiated' || eventType === 'call.answered')
    return { providerId, state: 'accepted' };
  if (eventType !== 'call.hangup') return undefined;
  const cause = str(payload.hangup_cause) ?? '';
  // The script ends in a hang-up, so a normal clearing after an answer is the call delivered.
  if (cause === 'normal_clearing') return { providerId, state: 'delivered' };
  return withCarrier({ providerId, state: 'failed' }, cause || undefined, str(payload.sip_hangup_cause));
}

function parseTexml(fields: Obj): StatusReport | undefined {
  const providerId = str(fields.CallSid);
  const status = str(fields.CallStatus);
  if (!providerId || !status) return undefined;
  // TeXML's `completed` follows an answered call (unanswered ones end as no-answer, busy, failed, canceled).
  if (status === 'completed') return { providerId, state: 'delivered' };
  if (CALL_FAILED.has(status)) {
    return withCarrier(
      { providerId, state: 'failed' },
      str(fields.ErrorCode) ?? status,
      str(fields.ErrorMessage) ?? status,
    );
  }
  return { providerId, state: 'accepted' };
}

/** Maps a Telnyx callback onto accepted / delivered / failed; undefined for anything that is not a status. */
export function parseTelnyxStatus(body: unknown): StatusReport | undefined {
  const fields = toObject(body);
  if (!fields) return undefined;
  if (isObj(fields.data)) {
    const eventType = str(fields.data.event_type) ?? '';
    const payload = fields.data.payload;
    if (!isObj(payload)) return undefined;
    if (eventType.startsWith('message.')) return parseMessage(eventType, payload);
    if (eventType.startsWith('call.')) return parseCallControl(eventType, payload);
    return undefined;
  }
  return parseTexml(fields);
}
