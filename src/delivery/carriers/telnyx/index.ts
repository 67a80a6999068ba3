// Telnyx as the service knows it: its account fields, its adapter and its Ed25519-signed status callbacks.
import type { CarrierDescriptor } from '../descriptor.js';
import { createTelnyxAdapter, type TelnyxCredentials } from './adapter.js';
import { probeTelnyx } from './probe.js';
import { parseTelnyxStatus, verifyTelnyxSignature } from './webhook.js';

export interface TelnyxAccountCredentials extends TelnyxCredentials {
  /** Base64 Ed25519 key that checks Telnyx's webhook signatures. */
  publicKey?: string;
}

export const telnyx: CarrierDescriptor<TelnyxAccountCredentials> = {
  type: 'telnyx',
  label: 'Telnyx',
  fields: [
    {
      name: 'apiKey',
      label: 'API key',
      kind: 'secret',
      required: true,
      cli: { option: 'api-key', value: 'KEY' },
    },
    {
      name: 'messagingProfileId',
      label: 'Messaging profile ID',
      kind: 'text',
      required: false,
      hint: 'To send SMS from a messaging profile.',
      cli: { option: 'messaging-profile-id', value: 'ID' },
    },
    {
      name: 'connectionId',
      label: 'Connection ID',
      kind: 'text',
      required: false,
      hint: "The TeXML application's connection: needed for voice.",
      cli: { option: 'connection-id', value: 'ID' },
    },
    {
      name: 'publicKey',
      label: 'Public key',
      kind: 'text',
      required: false,
      hint: "The account's Ed25519 public key (base64), to accept status callbacks.",
      cli: { option: 'public-key', value: 'KEY' },
      check: (value) =>
        Buffer.from(value, 'base64').length === 32
          ? undefined
          : 'must be the base64 Ed25519 public key Telnyx shows',
    },
  ],
  baseUrl: true,
  channels: ['sms', 'voice'],
  callbackHint:
    "Set it as the TeXML application's status callback URL at Telnyx (calls carry none of their own); messages request it themselves.",
  createAdapter: (account, context) =>
    createTelnyxAdapter({
      credentials: account.credentials,
      baseUrl: account.baseUrl,
      statusCallbackUrl: context.statusCallbackUrl,
      timeoutMs: context.timeoutMs,
    }),
  probe: probeTelnyx,
  webhook: {
    verify: (account, request) =>
      account.credentials.publicKey !== undefined &&
      verifyTelnyxSignature({
        headers: request.headers,
        rawBody: request.rawBody,
        publicKey: account.credentials.publicKey,
        now: request.now,
      }),
    parse: (rawBody) => parseTelnyxStatus(rawBody),
  },
};
