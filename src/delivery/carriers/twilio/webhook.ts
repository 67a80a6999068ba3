// Twilio status callbacks: form posts to the StatusCallback URL, signed in X-Twilio-Signature.
// Signature (twilio.com/docs/usage/webhooks/webhooks-security; twilio-node src/webhooks/webhooks.ts):
// base64(HMAC-SHA1(AuthToken, the full URL Twilio called + each POST parameter, sorted by name, as name then
// value with no separator)). Twilio signs sometimes with, sometimes without the default port, so both pass.
// The scheme carries no timestamp: a replayed callback cannot be told from a fresh one, which is why applying
// a status report must be idempotent (the same report twice changes nothing).
// Parameters: messages post MessageSid, MessageStatus, ErrorCode (twilio.com/docs/messaging/api/message-resource);
// calls post CallSid, CallStatus (twilio.com/docs/voice/api/call-resource#statuscallback).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { StatusReport } from '../../provider.js';

export interface TwilioSignedRequest {
  /** The full public URL Twilio posted to (the StatusCallback URL, query string included). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw application/x-www-form-urlencoded body. */
  rawBody: string;
}

export function verifyTwilioSignature(
  request: TwilioSignedRequest,
  credentials: { authToken: string },
): boolean {
  const header = headerValue(request.headers, 'x-twilio-signature');
  if (!header || !credentials.authToken) return false;
  let candidates: string[];
  try {
    candidates = urlVariants(request.url);
  } catch {
    return false;
  }
  const params = new URLSearchParams(request.rawBody);
  const given = Buffer.from(header);
  let valid = false;
  // Check every variant (no early exit), each in constant time.
  for (const url of candidates) {
    const expected = Buffer.from(twilioSignature(credentials.authToken, url, params));
    if (expected.length === given.length && timingSafeEqual(expected, given)) valid = true;
  }
  return valid;
}

/** The signature Twilio computes for a POST to `url` with these form parameters. */
export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  const byName = new Map<string, string[]>();
  for (const [name, value] of params) byName.set(name, [...(byName.get(name) ?? []), value]);
  let data = url;
  // Case-sensitive, code-unit order; repeated names contribute each distinct value, sorted.
  for (const name of [...byName.keys()].sort()) {
    for (const value of [...new Set(byName.get(name))].sort()) data += name + value;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

function urlVariants(url: string): string[] {
  const parsed = new URL(url);
  const withoutPort = new URL(url);
  withoutPort.port = '';
  const defaultPort = parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : '';
  // new URL() drops a default port (https://host:443/ reads as https://host/), so that form is built by hand.
  const auth =
    parsed.username || parsed.password
      ? `${parsed.username}${parsed.password ? `:${parsed.password}` : ''}@`
      : '';
  const withPort =
    parsed.port !== '' || !defaultPort
      ? parsed.toString()
      : `${parsed.protocol}//${auth}${parsed.host}:${defaultPort}${parsed.pathname}${parsed.search}${parsed.hash}`;
  return [...new Set([url, withoutPort.toString(), withPort])];
}

function headerValue(headers: TwilioSignedRequest['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const MESSAGE_STATES: Record<string, StatusReport['state']> = {
  accepted: 'accepted',
  scheduled: 'accepted',
  queued: 'accepted',
  sending: 'accepted',
  sent: 'accepted',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

const CALL_STATES: Record<string, StatusReport['state']> = {
  queued: 'accepted',
  initiated: 'accepted',
  ringing: 'accepted',
  'in-progress': 'accepted',
  // The call was answered and the script played to its end (or the person hung up).
  completed: 'delivered',
  busy: 'failed',
  'no-answer': 'failed',
  failed: 'failed',
  canceled: 'failed',
};

/** A Twilio status callback's body (raw form, or already parsed) as a status report; undefined if not one. */
export function parseTwilioStatus(
  body: string | URLSearchParams | Record<string, unknown>,
): StatusReport | undefined {
  const params =
    typeof body === 'string' || body instanceof URLSearchParams
      ? new URLSearchParams(body)
      : fromRecord(body);
  const messageSid = params.get('MessageSid');
  const messageStatus = params.get('MessageStatus');
  if (messageSid && messageStatus) {
    const state = MESSAGE_STATES[messageStatus];
    if (!state) return undefined;
    return withCarrierWords(
      { providerId: messageSid, state },
      params.get('ErrorCode'),
      messageStatus,
      params,
    );
  }
  const callSid = params.get('CallSid');
  const callStatus = params.get('CallStatus');
  if (callSid && callStatus) {
    const state = CALL_STATES[callStatus];
    if (!state) return undefined;
    return withCarrierWords({ providerId: callSid, state }, params.get('ErrorCode'), callStatus, params);
  }
  return undefined;
}

function withCarrierWords(
  report: StatusReport,
  errorCode: string | null,
  status: string,
  params: URLSearchParams,
): StatusReport {
  if (report.state !== 'failed') return report;
  const words = params.get('ErrorMessage');
  return {
    ...report,
    carrierCode: errorCode || status,
    carrierMessage: words ? `${status}: ${words}` : status,
  };
}

function fromRecord(record: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string' || typeof value === 'number') params.append(name, String(value));
  }
  return params;
}
