// Twilio adapter: SMS by the Messages API, voice by the Calls API with inline TwiML. The documented contract
// followed here:
// - Base https://api.twilio.com/2010-04-01, HTTP Basic auth with AccountSid:AuthToken
//   (twilio.com/docs/iam/api "Our API: the basics").
// - POST /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded To, From, Body, StatusCallback
//   (twilio.com/docs/messaging/api/message-resource; twilio-go rest/api/v2010/docs/AccountsMessagesApi.md).
// - POST /2010-04-01/Accounts/{AccountSid}/Calls.json, form-encoded To, From, Twiml, StatusCallback and one
//   StatusCallbackEvent parameter per event (twilio.com/docs/voice/api/call-resource, its curl examples).
// - Success: 201 with the resource as JSON, its id in "sid". Failure: JSON {code, message, more_info, status}
//   (twilio.com/docs/usage/twilios-response; error codes at twilio.com/docs/api/errors).
import type { DeliveryErrorCode } from '../../error-codes.js';
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
import { toTwiml } from './twiml.js';

export { retryAfterMs } from '../http.js';

export const TWILIO_API_BASE = 'https://api.twilio.com';

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
}

export interface TwilioAdapterConfig {
  credentials: TwilioCredentials;
  /** Replaces https://api.twilio.com (a regional edge, a proxy, a test double); same wire format. */
  baseUrl?: string;
  /** Where Twilio posts status callbacks; requested on every message and call. */
  statusCallbackUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Twilio error codes that mean the destination itself was refused (twilio.com/docs/api/errors/<code>).
 * Any other 4xx (bad credentials 20003, unknown account 20404, a sender not enabled, …) is on our side.
 */
const DESTINATION_CODES = new Set([
  21211, // Invalid 'To' phone number
  21214, // 'To' phone number cannot be reached
  21215, // Account not authorized to call this number (geographic permissions)
  21216, // Account not allowed to call this number
  21217, // Phone number does not appear to be valid
  21219, // 'To' phone number not verified (trial account, calls)
  21401, // Invalid phone number
  21407, // This phone number type does not support SMS or MMS
  21408, // Permission to send an SMS has not been enabled for the region of the 'To' number
  21608, // The 'To' number is unverified (trial account)
  21610, // Attempt to send to an unsubscribed recipient (STOP)
  21612, // The 'To' phone number is not currently reachable via SMS
  21614, // 'To' number is not a valid mobile number
  21635, // 'To' number cannot be a landline
]);

export function createTwilioAdapter(config: TwilioAdapterConfig): DeliveryProvider {
  const { accountSid, authToken } = config.credentials;
  const base = (config.baseUrl ?? TWILIO_API_BASE).replace(/\/+$/, '');
  const accountPath = `${base}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}`;
  const authorization = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;

  function formFor(message: OutboundMessage): { resource: string; form: URLSearchParams } {
    const form = new URLSearchParams({ To: message.to, From: message.from });
    if (message.channel === 'voice') {
      form.set('Twiml', toTwiml(message.voice, message.locale));
      form.set('StatusCallback', config.statusCallbackUrl);
      // The final state (completed, busy, no-answer, failed, canceled) arrives with "completed".
      form.append('StatusCallbackEvent', 'answered');
      form.append('StatusCallbackEvent', 'completed');
      return { resource: 'Calls.json', form };
    }
    form.set('Body', message.text);
    form.set('StatusCallback', config.statusCallbackUrl);
    return { resource: 'Messages.json', form };
  }

  return {
    name: 'twilio',
    async send(message) {
      const { resource, form } = formFor(message);
      const reply = await postToCarrier({
        url: `${accountPath}/${resource}`,
        headers: {
          authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        timeoutMs: config.timeoutMs,
        fetch: config.fetch,
        // Timeout, refused or reset connection: nothing says Twilio refused the message.
        noAnswer: (why) => `Twilio ${why.timedOut ? 'timed out' : 'unreachable'}`,
      });
      return handOverFrom(reply);
    },
  };
}

function handOverFrom(reply: CarrierReply): HandOver {
  const { body } = reply;
  if (reply.ok) {
    const sid = body?.sid;
    if (typeof sid !== 'string' || sid === '') {
      throw new TransientDeliveryError(`Twilio HTTP ${reply.status} without a resource sid`);
    }
    return { ok: true, providerId: sid };
  }
  const errorMessage = carrierErrorMessage('Twilio', reply, twilioError);
  if (isTransientStatus(reply.status)) throw transientReply(reply, errorMessage);
  const code = twilioError(body ?? {}).code;
  const errorCode: DeliveryErrorCode =
    code !== undefined && DESTINATION_CODES.has(code) ? 'destination_rejected' : 'provider_error';
  return { ok: false, providerId: null, errorCode, errorMessage };
}

/** Twilio's documented error fields: a positive whole `code` and its `message`. */
export function twilioError(body: Record<string, unknown>): CarrierError & { code?: number } {
  const raw = body.code;
  const code =
    typeof raw === 'number' || (typeof raw === 'string' && /^\d{1,9}$/.test(raw)) ? Number(raw) : 0;
  return { code: Number.isSafeInteger(code) && code > 0 ? code : undefined, words: [body.message] };
}
