// The credential fields of a carrier, as the Carriers page asks for them: its descriptor's fields (the same
// credentials as `carrier add`), named in snake_case as the service's field errors name them. Secrets are
// password inputs (or a textarea for a PEM key) and are never written back into a page.
import { carrierOfType, snakeCase } from '../../carrier-accounts/account-types.js';
import type { AnyCarrier, CredentialField } from '../../delivery/carriers/descriptor.js';
import { type AppError, invalidField } from '../../errors.js';
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

/**
 * The API address an account posts to (its base URL) is the operator's setting, made with the CLI (`carrier add
 * … --base-url`, `carrier rotate … --base-url`): from the dashboard, any member could make the service post the
 * account's credentials to any address, internal ones included (SSRF), and read the answer in error_message. So
 * no form offers it, and a form that carries one, even empty, is refused (400), changing nothing.
 */
export function refuseBaseUrl(body: FormBody): void {
  if (body !== null && typeof body === 'object' && Object.hasOwn(body, 'base_url')) {
    throw invalidField(
      'base_url',
      "is the operator's setting, made with the CLI (carrier add … --base-url), not in the dashboard",
    );
  }
}

/** What may be shown again after a failed form: the non-secret fields as typed. */
export function echoedValues(body: FormBody, carrier: AnyCarrier): Record<string, string> {
  const out: Record<string, string> = {};
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
