// Twilio as the service knows it: its account fields, its adapter and its signed status callbacks.
import type { CarrierDescriptor } from '../descriptor.js';
import { createTwilioAdapter, type TwilioCredentials } from './adapter.js';
import { probeTwilio } from './probe.js';
import { parseTwilioStatus, verifyTwilioSignature } from './webhook.js';

export const twilio: CarrierDescriptor<TwilioCredentials> = {
  type: 'twilio',
  label: 'Twilio',
  fields: [
    {
      name: 'accountSid',
      label: 'Account SID',
      kind: 'text',
      required: true,
      hint: 'Starts with AC.',
      cli: { option: 'account-sid', value: 'SID' },
    },
    {
      name: 'authToken',
      label: 'Auth token',
      kind: 'secret',
      required: true,
      cli: { option: 'auth-token', value: 'TOKEN' },
    },
  ],
  baseUrl: true,
  channels: ['sms', 'voice'],
  callbackHint: 'Requested with every message and call: nothing to set at Twilio.',
  createAdapter: (account, context) =>
    createTwilioAdapter({
      credentials: account.credentials,
      baseUrl: account.baseUrl,
      statusCallbackUrl: context.statusCallbackUrl,
      timeoutMs: context.timeoutMs,
    }),
  probe: probeTwilio,
  webhook: {
    // Twilio signs the URL it called: our public URL, plus any query string the callback URL carried.
    verify: (account, request) =>
      verifyTwilioSignature(
        { url: request.url, headers: request.headers, rawBody: request.rawBody },
        account.credentials,
      ),
    parse: (rawBody) => parseTwilioStatus(rawBody),
  },
};
