// What a carrier account is: a type (one of the carriers the service was built with), credentials, and the
// rules that validate them (for the CLI, the dashboard and rotation alike) before they are sealed. The rules of
// each type are its descriptor's fields (src/delivery/carriers/<type>/).
import { invalidField } from '../errors.js';

/** One credential of a carrier account: how forms and the CLI ask for it, and how it is checked. */
export interface CredentialField {
  /** The stored name (camelCase); forms and field errors spell it in snake_case (accountSid -> account_sid). */
  name: string;
  /** The dashboard's label. */
  label: string;
  /** secret: a password input; pem: a multi-line key, kept untrimmed; port: a whole number from 1 to 65535. */
  kind: 'text' | 'secret' | 'pem' | 'port';
  required: boolean;
  /** The dashboard's line of help under the field. */
  hint?: string;
  /** The CLI option (without --) and the placeholder its usage shows; `file`: the option names a file to read. */
  cli: { option: string; value: string; file?: boolean };
  /** A further check of a value of the right shape: the reason it is refused, or undefined. */
  check?(value: string): string | undefined;
}

/** An account as the carrier's functions get it: its credentials already validated by the descriptor's fields. */
export interface CarrierAccountOf<C> {
  id: string;
  workspaceId: string;
  type: string;
  /** Replaces the carrier's API base (a regional edge, a proxy, a test double). */
  baseUrl: string | undefined;
  credentials: C;
}

/** What accounts need of a carrier (its descriptor has it): its type, its name, and its credentials' fields. */
export interface AccountKind {
  type: string;
  label: string;
  fields: readonly CredentialField[];
}

/** A carrier type's name, as stored with each account ("carrier list" shows it). */
export type CarrierType = string;

/** An account with its credentials decrypted: what its carrier's descriptor validated for its type. */
export type CarrierAccount = CarrierAccountOf<Record<string, unknown>>;

/** Errors name fields in snake_case, as forms and the CLI (--account-sid) spell them. */
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The carrier of a type, or a field error listing the types there are. */
export function carrierOfType<K extends AccountKind>(carriers: readonly K[], type: string): K {
  const carrier = carriers.find((c) => c.type === type);
  if (!carrier) throw invalidField('type', `must be one of ${carriers.map((c) => c.type).join(', ')}`);
  return carrier;
}

function checkedValue(f: CredentialField, value: unknown): unknown {
  if (f.kind === 'port') {
    const port = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (!Number.isSafeInteger(port) || (port as number) < 1 || (port as number) > 65_535) {
      throw invalidField(snakeCase(f.name), 'must be a whole number from 1 to 65535');
    }
    return port;
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalidField(snakeCase(f.name), 'must not be empty');
  }
  // A PEM key is kept byte for byte; anything else loses the spaces a paste brings.
  return f.kind === 'pem' ? value : value.trim();
}

/** The credentials the carrier's fields allow, checked and normalised; any other field is refused. */
export function validateCredentials(
  carrier: AccountKind,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const f = carrier.fields.find((x) => x.name === name);
    if (!f) throw invalidField(snakeCase(name), `does not apply to a ${carrier.type} account`);
    out[name] = checkedValue(f, value);
  }
  for (const f of carrier.fields) {
    if (f.required && out[f.name] === undefined) {
      throw invalidField(snakeCase(f.name), `is required for a ${carrier.type} account`);
    }
  }
  for (const f of carrier.fields) {
    const value = out[f.name];
    const reason = f.check && typeof value === 'string' ? f.check(value) : undefined;
    if (reason) throw invalidField(snakeCase(f.name), reason);
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
