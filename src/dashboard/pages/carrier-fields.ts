// The credential fields of each carrier type, as the Carriers page asks for them: the same credentials as
// `carrier add` (src/cli/commands.ts), named in snake_case as the service's field errors name them. Secrets are
// password inputs (or a textarea for a PEM key) and are never written back into a page.
import { CARRIER_TYPES, type CarrierType } from '../../carrier-accounts/service.js';
import { type AppError, invalidField } from '../../errors.js';
import { type FormBody, field } from '../forms.js';

export interface CredentialField {
  /** The form field, and the service's field name in snake_case. */
  name: string;
  label: string;
  kind: 'text' | 'secret' | 'pem' | 'port';
  required: boolean;
  hint?: string;
}

export const TYPE_LABELS: Record<CarrierType, string> = {
  twilio: 'Twilio',
  telnyx: 'Telnyx',
  vonage: 'Vonage',
  smpp: 'SMPP',
};

export const CREDENTIAL_FIELDS: Record<CarrierType, CredentialField[]> = {
  twilio: [
    { name: 'account_sid', label: 'Account SID', kind: 'text', required: true, hint: 'Starts with AC.' },
    { name: 'auth_token', label: 'Auth token', kind: 'secret', required: true },
  ],
  telnyx: [
    { name: 'api_key', label: 'API key', kind: 'secret', required: true },
    {
      name: 'messaging_profile_id',
      label: 'Messaging profile ID',
      kind: 'text',
      required: false,
      hint: 'To send SMS from a messaging profile.',
    },
    {
      name: 'connection_id',
      label: 'Connection ID',
      kind: 'text',
      required: false,
      hint: "The TeXML application's connection: needed for voice.",
    },
    {
      name: 'public_key',
      label: 'Public key',
      kind: 'text',
      required: false,
      hint: "The account's Ed25519 public key (base64), to accept status callbacks.",
    },
  ],
  vonage: [
    { name: 'api_key', label: 'API key', kind: 'text', required: true },
    { name: 'api_secret', label: 'API secret', kind: 'secret', required: true },
    { name: 'application_id', label: 'Application ID', kind: 'text', required: true },
    {
      name: 'private_key',
      label: 'Private key',
      kind: 'pem',
      required: true,
      hint: "The application's private key, PEM (-----BEGIN PRIVATE KEY----- …).",
    },
    {
      name: 'signature_secret',
      label: 'Signature secret',
      kind: 'secret',
      required: true,
      hint: 'Checks the signature of Vonage’s callbacks.',
    },
  ],
  smpp: [
    { name: 'host', label: 'Host', kind: 'text', required: true },
    { name: 'port', label: 'Port', kind: 'port', required: true },
    { name: 'system_id', label: 'System ID', kind: 'text', required: true },
    { name: 'password', label: 'Password', kind: 'secret', required: true },
    {
      name: 'system_type',
      label: 'System type',
      kind: 'text',
      required: false,
      hint: 'Only where the SMSC asks for one.',
    },
  ],
};

export const isSecret = (f: CredentialField) => f.kind === 'secret' || f.kind === 'pem';

export function carrierTypeOf(body: FormBody): CarrierType {
  const type = field(body, 'type');
  if (!CARRIER_TYPES.includes(type as CarrierType)) {
    throw invalidField('type', `must be one of ${CARRIER_TYPES.join(', ')}`);
  }
  return type as CarrierType;
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The type's credentials from a form, as the service takes them; empty fields are left out. */
export function credentialsFrom(body: FormBody, type: CarrierType): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const f of CREDENTIAL_FIELDS[type]) {
    const value = field(body, f.name);
    out[camel(f.name)] = value.trim() === '' ? undefined : value;
  }
  return out;
}

/** What may be shown again after a failed form: the non-secret fields as typed, and the base URL. */
export function echoedValues(body: FormBody, type: CarrierType): Record<string, string> {
  const out: Record<string, string> = { base_url: field(body, 'base_url') };
  for (const f of CREDENTIAL_FIELDS[type]) if (!isSecret(f)) out[f.name] = field(body, f.name);
  return out;
}

/** A failed form's reason in the page's words: the field's label instead of its snake_case name. */
export function describeFailure(err: AppError, type: CarrierType): { message: string; field?: string } {
  const first = err.extras.errors?.[0];
  if (!first) return { message: err.message };
  const label =
    first.field === 'base_url'
      ? 'Base URL'
      : (CREDENTIAL_FIELDS[type].find((f) => f.name === first.field)?.label ?? first.field);
  return { message: `${label} ${first.message}.`, field: first.field };
}
