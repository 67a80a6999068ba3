// Vonage as the service knows it: its account fields, its adapter and its JWT-signed status callbacks.
import { createPrivateKey } from 'node:crypto';
import type { CarrierDescriptor } from '../descriptor.js';
import { createVonageAdapter, type VonageCredentials } from './adapter.js';
import { probeVonage } from './probe.js';
import { parseVonageStatus, verifyVonageSignature } from './webhook.js';

export interface VonageAccountCredentials extends VonageCredentials {
  /** Checks the HS256 signature of Vonage's callbacks. */
  signatureSecret: string;
}

function isPrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

export const vonage: CarrierDescriptor<VonageAccountCredentials> = {
  type: 'vonage',
  label: 'Vonage',
  fields: [
    {
      name: 'apiKey',
      label: 'API key',
      kind: 'text',
      required: true,
      cli: { option: 'api-key', value: 'KEY' },
    },
    {
      name: 'apiSecret',
      label: 'API secret',
      kind: 'secret',
      required: true,
      cli: { option: 'api-secret', value: 'SECRET' },
    },
    {
      name: 'applicationId',
      label: 'Application ID',
      kind: 'text',
      required: true,
      cli: { option: 'application-id', value: 'ID' },
    },
    {
      name: 'privateKey',
      label: 'Private key',
      kind: 'pem',
      required: true,
      hint: "The application's private key, PEM (-----BEGIN PRIVATE KEY----- …).",
      cli: { option: 'private-key-file', value: 'PATH', file: true },
      check: (value) => (isPrivateKey(value) ? undefined : 'must be a private key in PEM form'),
    },
    {
      name: 'signatureSecret',
      label: 'Signature secret',
      kind: 'secret',
      required: true,
      hint: 'Checks the signature of Vonage’s callbacks.',
      cli: { option: 'signature-secret', value: 'SECRET' },
    },
  ],
  baseUrl: true,
  channels: ['sms', 'voice'],
  callbackHint: 'Requested with every message and call: nothing to set at Vonage.',
  createAdapter: (account, context) =>
    createVonageAdapter({
      credentials: account.credentials,
      baseUrl: account.baseUrl,
      statusCallbackUrl: context.statusCallbackUrl,
      timeoutMs: context.timeoutMs,
    }),
  probe: probeVonage,
  webhook: {
    // Vonage: "in the rare case of an internal error" a callback may come unsigned; it retries on a 5xx.
    unsignedMayBeGenuine: (request) => request.headers.authorization === undefined,
    verify: (account, request) =>
      verifyVonageSignature(
        { headers: request.headers, rawBody: request.rawBody },
        { signatureSecret: account.credentials.signatureSecret, apiKey: account.credentials.apiKey },
        request.now,
      ),
    parse: (rawBody) => parseVonageStatus(rawBody),
  },
};
