// The Telnyx adapter: SMS by the Messaging API v2, voice by a TeXML call carrying its script inline.
//
// Documented contracts followed (developers.telnyx.com, found with the search tool):
// - SMS: "Send a message", POST {base}/v2/messages, `Authorization: Bearer <API key>`, JSON
//   { from, to, text, webhook_url }; 200 { data: { id, to: [{ status: 'queued' }], ... } }
//   (docs/messaging/messages/send-message; receiving-webhooks for the per-message webhook_url).
// - Voice: "Create a connection-scoped TeXML call", POST {base}/v2/texml/calls/{connection_id}, Bearer auth,
//   JSON { From, To, Texml } (parameter names case-sensitive); 200 flat { call_sid, from, to, status: 'queued' }
//   (api-reference/texml-rest-commands/create-a-connection-scoped-texml-call).
//   Why TeXML and this endpoint: it is the one documented contract where a single request carries the whole
//   script (`Texml`, inline) and answers with the call's id. Call Control (POST /v2/calls) needs a second
//   `speak` command after the `call.answered` webhook, so the send would depend on our webhook round-trip;
//   the account-scoped TeXML call (/v2/texml/Accounts/{sid}/Calls) takes only a `Url` to fetch TeXML from
//   and answers without a call id. The cost: this endpoint has no per-call `StatusCallback`, so call status
//   callbacks go to the status callback URL configured on the TeXML application (texml-verbs/hangup:
//   "sent to the webhook url defined on the connection level"); `statusCallbackUrl` is requested per SMS.
// - Errors: { errors: [{ code, title, detail, source? }] } (development/api-fundamentals/api-errors;
//   api/errors/40310 "Invalid 'to' address", HTTP 400; 10009 "Authentication failed").
import {
  type DeliveryProvider,
  type HandOver,
  type OutboundMessage,
  TransientDeliveryError,
} from '../../provider.js';
import {
  type CarrierError,
  type CarrierReply,
  carrierErrorMessage,
  isTransientStatus,
  postToCarrier,
  transientReply,
} from '../http.js';
import { toTexml } from './texml.js';

export { retryAfterMs } from '../http.js';

export const TELNYX_BASE_URL = 'https://api.telnyx.com';

export interface TelnyxCredentials {
  /** API key (v2), sent as a bearer token. */
  apiKey: string;
  /** The TeXML application's connection id, for voice calls. */
  connectionId?: string;
  /** Optional messaging profile; without it Telnyx uses the profile of the `from` number. */
  messagingProfileId?: string;
}

export interface TelnyxAdapterConfig {
  credentials: TelnyxCredentials;
  /** Replaces https://api.telnyx.com (a regional edge, a proxy, a test double). */
  baseUrl?: string;
  statusCallbackUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Telnyx codes that reject the destination itself, rather than our account or request. */
const DESTINATION_CODES = new Set([
  '10001', // Inactive phone number
  '10002', // Invalid phone number
  '10016', // Phone number must be in +E.164 format
  '40001', // Not routable (landline or non-routable destination)
  '40310', // Invalid 'to' address
]);

interface TelnyxError {
  code: string;
  title: string;
  detail: string;
  pointer: string;
}

export function createTelnyxAdapter(config: TelnyxAdapterConfig): DeliveryProvider {
  const base = (config.baseUrl ?? TELNYX_BASE_URL).replace(/\/+$/, '');
  const { apiKey, connectionId, messagingProfileId } = config.credentials;

  /** The body is read within the same deadline; a body cut short is as transient as no answer. */
  function post(path: string, body: Record<string, unknown>): Promise<CarrierReply> {
    return postToCarrier({
      url: `${base}${path}`,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify(body),
      timeoutMs: config.timeoutMs,
      fetch: config.fetch,
      noAnswer: (why) =>
        why.stage === 'connect'
          ? `Telnyx unreachable: ${why.detail}`
          : `Telnyx response unreadable: ${why.detail}`,
    });
  }

  function outcome(reply: CarrierReply, idOf: (body: unknown) => unknown): HandOver {
    const { body } = reply;
    if (reply.ok) {
      const id = idOf(body);
      if (typeof id === 'string' && id !== '') return { ok: true, providerId: id };
      throw new TransientDeliveryError(`Telnyx answered ${reply.status} without an id (malformed body)`);
    }
    const errorMessage = carrierErrorMessage('Telnyx', reply, telnyxError);
    if (isTransientStatus(reply.status)) throw transientReply(reply, errorMessage);
    const error = firstError(body);
    const destination = error !== undefined && (DESTINATION_CODES.has(error.code) || error.pointer === '/to');
    return {
      ok: false,
      providerId: null,
      errorCode: destination ? 'destination_rejected' : 'provider_error',
      errorMessage,
    };
  }

  return {
    name: 'telnyx',
    async send(message: OutboundMessage): Promise<HandOver> {
      if (message.channel === 'sms') {
        const res = await post('/v2/messages', {
          from: message.from,
          to: message.to,
          text: message.text,
          webhook_url: config.statusCallbackUrl,
          ...(messagingProfileId ? { messaging_profile_id: messagingProfileId } : {}),
        });
        return outcome(res, (body) => field(field(body, 'data'), 'id'));
      }
      if (!connectionId) {
        return {
          ok: false,
          providerId: null,
          errorCode: 'provider_error',
          errorMessage: 'Telnyx account has no TeXML connection id for voice calls',
        };
      }
      const res = await post(`/v2/texml/calls/${encodeURIComponent(connectionId)}`, {
        From: message.from,
        To: message.to,
        Texml: toTexml(message.voice),
      });
      return outcome(res, (body) => field(body, 'call_sid'));
    },
  };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** Telnyx's documented error fields: the first error's code, title and detail. */
export function telnyxError(body: Record<string, unknown>): CarrierError | undefined {
  const error = firstError(body);
  return error && { code: error.code, words: [error.title, error.detail] };
}

function firstError(body: unknown): TelnyxError | undefined {
  const errors = field(body, 'errors');
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const first: unknown = errors[0];
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  return {
    code: text(field(first, 'code')),
    title: text(field(first, 'title')),
    detail: text(field(first, 'detail')),
    pointer: text(field(field(first, 'source'), 'pointer')),
  };
}
