// What a carrier account is, per type: its credentials, and the rules that validate them (for the CLI, the
// dashboard and rotation alike) before they are sealed.
import { createPrivateKey } from 'node:crypto';
import { invalidField } from '../errors.js';

export const CARRIER_TYPES = ['twilio', 'telnyx', 'vonage', 'smpp'] as const;
export type CarrierType = (typeof CARRIER_TYPES)[number];

export interface TwilioAccountCredentials {
  accountSid: string;
  authToken: string;
}
export interface TelnyxAccountCredentials {
  apiKey: string;
  connectionId?: string;
  messagingProfileId?: string;
  /** Base64 Ed25519 key that checks Telnyx's webhook signatures. */
  publicKey?: string;
}
export interface VonageAccountCredentials {
  apiKey: string;
  apiSecret: string;
  applicationId: string;
  /** PEM. */
  privateKey: string;
  /** Checks the HS256 signature of Vonage's callbacks. */
  signatureSecret: string;
}
export interface SmppAccountCredentials {
  host: string;
  port: number;
  systemId: string;
  password: string;
  /** bind_transceiver's system_type, where the SMSC asks for one (empty otherwise). */
  systemType?: string;
}

interface AccountBase {
  id: string;
  workspaceId: string;
  baseUrl: string | undefined;
}
export type CarrierAccount = AccountBase &
  (
    | { type: 'twilio'; credentials: TwilioAccountCredentials }
    | { type: 'telnyx'; credentials: TelnyxAccountCredentials }
    | { type: 'vonage'; credentials: VonageAccountCredentials }
    | { type: 'smpp'; credentials: SmppAccountCredentials }
  );

/** Per type: the fields it requires and the ones it may take. Anything else is refused. */
const FIELDS: Record<CarrierType, { required: string[]; optional: string[] }> = {
  twilio: { required: ['accountSid', 'authToken'], optional: [] },
  telnyx: { required: ['apiKey'], optional: ['connectionId', 'messagingProfileId', 'publicKey'] },
  vonage: {
    required: ['apiKey', 'apiSecret', 'applicationId', 'privateKey', 'signatureSecret'],
    optional: [],
  },
  smpp: { required: ['host', 'port', 'systemId', 'password'], optional: ['systemType'] },
};

/** Errors name fields in snake_case, as forms and the CLI (--account-sid) spell them. */
const field = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export function validateCredentials(
  type: CarrierType,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const { required, optional } = FIELDS[type];
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!required.includes(name) && !optional.includes(name)) {
      throw invalidField(field(name), `does not apply to a ${type} account`);
    }
    if (name === 'port') {
      const port = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (!Number.isSafeInteger(port) || (port as number) < 1 || (port as number) > 65_535) {
        throw invalidField('port', 'must be a whole number from 1 to 65535');
      }
      out.port = port;
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '')
      throw invalidField(field(name), 'must not be empty');
    out[name] = name === 'privateKey' ? value : value.trim();
  }
  for (const name of required) {
    if (out[name] === undefined) throw invalidField(field(name), `is required for a ${type} account`);
  }
  if (type === 'vonage') {
    try {
      createPrivateKey(out.privateKey as string);
    } catch {
      throw invalidField('private_key', 'must be a private key in PEM form');
    }
  }
  if (type === 'telnyx' && out.publicKey !== undefined) {
    if (Buffer.from(out.publicKey as string, 'base64').length !== 32) {
      throw invalidField('public_key', 'must be the base64 Ed25519 public key Telnyx shows');
    }
  }
  return out;
}

export function validateBaseUrl(value: string | undefined): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalidField('base_url', 'must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidField('base_url', 'must be an http(s) URL');
  }
  if (url.username || url.password) throw invalidField('base_url', 'must not carry credentials');
  return url.href.replace(/\/+$/, '');
}
