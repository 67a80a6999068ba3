// The credential fields of a carrier, as the Carriers page asks for them: its descriptor's fields (the same
// credentials as `carrier add`), named in snake_case as the service's field errors name them. Secrets are
// password inputs (or a textarea for a PEM key) and are never written back into a page.
import { carrierOfType, snakeCase } from '../../carrier-accounts/account-types.js';
import type { AnyCarrier, CredentialField } from '../../delivery/carriers/descriptor.js';
import type { AppError } from '../../errors.js';
import { type FormBody, field } from '../forms.js';

/** The form field of a credential: the service's field name in snake_case. */
export const formName = (f: CredentialField) => snakeCase(f.name);

export const isSecret = (f: CredentialField) => f.kind === 'secret' || f.kind === 'pem';

/** The carrier a form names in its `type` field, or a field error listing the types there are. */
export function carrierTypeOf(carriers: readonly AnyCarrier[], body: FormBody): AnyCarrier {
  return carrierOfType(carriers, field(body, 'type'));
}

/** The carrier's credentials from a form, as the service takes them; empty fields are left out. */
export function credentialsFrom(body: FormBody, carrier: AnyCarrier): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const f of carrier.fields) {
    const value = field(body, formName(f));
    out[f.name] = value.trim() === '' ? undefined : value;
  }
  return out;
}

/** What may be shown again after a failed form: the non-secret fields as typed, and the base URL. */
export function echoedValues(body: FormBody, carrier: AnyCarrier): Record<string, string> {
  const out: Record<string, string> = { base_url: field(body, 'base_url') };
  for (const f of carrier.fields) if (!isSecret(f)) out[formName(f)] = field(body, formName(f));
  return out;
}

/** A failed form's reason in the page's words: the field's label instead of its snake_case name. */
export function describeFailure(
  err: AppError,
  carrier: AnyCarrier | undefined,
): { message: string; field?: string } {
  const first = err.extras.errors?.[0];
  if (!first) return { message: err.message };
  const label =
    first.field === 'base_url'
      ? 'Base URL'
      : (carrier?.fields.find((f) => formName(f) === first.field)?.label ?? first.field);
  return { message: `${label} ${first.message}.`, field: first.field };
}
