// Vonage adapter. Documented contracts followed (developer.vonage.com):
// - SMS: Messages API, POST {api base}/v1/messages ("Messages API" reference; @vonage/messages SMS request:
//   message_type "text", channel "sms", to, from, text, webhook_url). Numbers go without the leading "+".
//   Success is 202 { message_uuid }. Errors are RFC 7807 bodies { type, title, detail, instance } ("API
//   Errors" > Messages: type ends in #<code>, e.g. 1040 invalid message / unrecognised prefix, 1050 number
//   barred; 401 bad credentials, 402 low balance, 422 invalid params, 429 throttled, 5xx).
//   Why the Messages API and not the SMS API (rest.nexmo.com/sms/json): its status webhook is signed by
//   default with the same HS256 JWT + payload_hash scheme as Voice events, so one verifier covers SMS and voice;
//   the SMS API's delivery receipts are unsigned unless signed messages are enabled by Vonage support (and then
//   use a different `sig` scheme), and it takes api_secret in the request body. Auth is the application JWT.
// - Voice: Voice API, POST {api base}/v1/calls ("Voice API" reference > Create an outbound call) with
//   Authorization: Bearer <RS256 application JWT>, JSON { to: [{ type: 'phone', number }], from: { type:
//   'phone', number }, ncco, event_url: [url] }. Success is 201 { uuid, status, direction, conversation_uuid }.
// - Callbacks: see webhook.ts.

import type { DeliveryProvider } from '../../provider.js';
import { type HandOver, type OutboundMessage, TransientDeliveryError } from '../../provider.js';
import {
  asObject,
  type CarrierError,
  type CarrierReply,
  carrierErrorMessage,
  DEFAULT_TIMEOUT_MS,
  isTransientStatus,
  postToCarrier,
  transientReply,
} from '../http.js';
import { signApplicationJwt } from './jwt.js';
import { toNcco } from './ncco.js';
import { errorCode, errorWords } from './webhook.js';

export { retryAfterMs } from '../http.js';

export const VONAGE_API_BASE = 'https://api.nexmo.com';

export interface VonageCredentials {
  /** Account API key and secret: identify the account (the api_key claim of signed callbacks). */
  apiKey: string;
  apiSecret: string;
  /** The Vonage application (Messages and Voice capabilities) whose private key signs our requests. */
  applicationId: string;
  /** PEM, PKCS#8 as Vonage issues it. */
  privateKey: string;
}

export interface VonageAdapterConfig {
  credentials: VonageCredentials;
  /** Replaces https://api.nexmo.com for both APIs (same paths, same wire format). */
  baseUrl?: string;
  statusCallbackUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Messages API error numbers that name the destination (see "API Errors" > Messages). */
const DESTINATION_CODES = new Set(['1040', '1050']);

export function createVonageAdapter(config: VonageAdapterConfig): DeliveryProvider {
  const base = (config.baseUrl ?? VONAGE_API_BASE).replace(/\/+$/, '');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function post(api: string, path: string, payload: unknown): Promise<CarrierReply> {
    let token: string;
    try {
      token = signApplicationJwt(config.credentials);
    } catch {
      throw new SigningError();
    }
    const reply = await postToCarrier({
      url: `${base}${path}`,
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify(payload),
      timeoutMs,
      fetch: config.fetch,
      noAnswer: (why) =>
        `Vonage ${api}: ${why.timedOut ? `no answer within ${timeoutMs} ms` : 'unreachable'}`,
    });
    if (isTransientStatus(reply.status)) {
      throw transientReply(reply, carrierErrorMessage(`Vonage ${api}`, reply, vonageError));
    }
    return reply;
  }

  function rejection(api: string, reply: CarrierReply, destination: boolean): HandOver {
    return {
      ok: false,
      providerId: null,
      errorCode: destination ? 'destination_rejected' : 'provider_error',
      errorMessage: carrierErrorMessage(`Vonage ${api}`, reply, vonageError),
    };
  }

  async function sendSms(message: OutboundMessage): Promise<HandOver> {
    const reply = await post('Messages API', '/v1/messages', {
      message_type: 'text',
      channel: 'sms',
      to: withoutPlus(message.to),
      from: withoutPlus(message.from),
      text: message.text,
      webhook_url: config.statusCallbackUrl,
    });
    const { body } = reply;
    if (reply.ok) {
      const id = body?.message_uuid;
      if (typeof id !== 'string' || !id)
        throw new TransientDeliveryError('Vonage Messages API: malformed response');
      return { ok: true, providerId: id };
    }
    const destination =
      (body !== undefined && DESTINATION_CODES.has(errorCode(body))) || namesParameter(body, 'to');
    return rejection('Messages API', reply, destination);
  }

  async function sendCall(message: OutboundMessage): Promise<HandOver> {
    const reply = await post('Voice API', '/v1/calls', {
      to: [{ type: 'phone', number: withoutPlus(message.to) }],
      from: { type: 'phone', number: withoutPlus(message.from) },
      ncco: toNcco({ ...message.voice, locale: message.locale }),
      event_url: [config.statusCallbackUrl],
      event_method: 'POST',
    });
    const { body } = reply;
    if (reply.ok) {
      const id = body?.uuid;
      if (typeof id !== 'string' || !id)
        throw new TransientDeliveryError('Vonage Voice API: malformed response');
      return { ok: true, providerId: id };
    }
    return rejection('Voice API', reply, namesParameter(body, 'to'));
  }

  return {
    name: 'vonage',
    async send(message) {
      try {
        return await (message.channel === 'voice' ? sendCall(message) : sendSms(message));
      } catch (err) {
        if (!(err instanceof SigningError)) throw err;
        // Our own configuration (a private key that cannot sign): retrying would not help.
        return {
          ok: false,
          providerId: null,
          errorCode: 'provider_error',
          errorMessage: 'Vonage: the application private key cannot sign requests',
        };
      }
    },
  };
}

class SigningError extends Error {}

const withoutPlus = (e164: string) => e164.replace(/^\+/, '');

/** Whether a 4xx body's invalid_parameters (Voice and Messages validation errors) blame the destination. */
function namesParameter(error: Record<string, unknown> | undefined, name: string): boolean {
  const params = error?.invalid_parameters;
  if (!Array.isArray(params)) return false;
  return params.some((p) => {
    const param = asObject(p)?.name;
    return (
      typeof param === 'string' &&
      (param === name || param.startsWith(`${name}[`) || param.startsWith(`${name}.`))
    );
  });
}

/**
 * Vonage's documented error fields (RFC 7807): the number in `type`, `title` and `detail` (the Voice API's
 * `error_title` where it gives no title) and the names and reasons of `invalid_parameters`.
 */
export function vonageError(error: Record<string, unknown>): CarrierError {
  const words = error.title || error.detail ? errorWords(error) : error.error_title;
  return {
    code: typeof error.type === 'string' && error.type !== '' ? errorCode(error) : undefined,
    words: [words, invalidParameters(error)],
  };
}

function invalidParameters(error: Record<string, unknown>): string | undefined {
  const params = error.invalid_parameters;
  if (!Array.isArray(params) || params.length === 0) return undefined;
  // A few name the problem; the words are bounded anyway (carrierErrorMessage).
  const described = params.slice(0, 10).map((p) => {
    const o = asObject(p);
    return [o?.name, o?.reason].filter((s) => typeof s === 'string').join(' ');
  });
  return `invalid parameters: ${described.join(', ')}`;
}
