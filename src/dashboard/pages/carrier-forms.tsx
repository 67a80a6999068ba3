// The Carriers page's forms: the credential fields of one carrier (its descriptor's) (adding an account, or rotating an
// account's credentials). Secret fields are always rendered empty, also after a failed submission. No form offers
// the API address (base URL): that is the operator's, set with the CLI (carrier-fields.ts, refuseBaseUrl).
import type { FC } from 'hono/jsx';
import type { AnyCarrier, CredentialField } from '../../delivery/carriers/descriptor.js';
import { BASE, Csrf } from '../layout.js';
import { formName } from './carrier-fields.js';

export const PATH = `${BASE}/carriers`;

/** A failed form: which one, why, the field to fix, and the non-secret values to show again. */
export interface CarrierFormFailure {
  form: 'add' | 'rotate' | 'remove' | 'test';
  /** The add form's type. */
  type?: string;
  /** The account a rotation or removal was for. */
  accountId?: string;
  message: string;
  field?: string;
  values: Record<string, string>;
}

export const FailureNote: FC<{ failure?: CarrierFormFailure; id: string }> = ({ failure, id }) =>
  failure ? (
    <p class="flash flash-error" role="alert" id={id}>
      {failure.message}
    </p>
  ) : null;

const Input: FC<{ f: CredentialField; id: string; value: string; invalid: boolean; errorId: string }> = ({
  f,
  id,
  value,
  invalid,
  errorId,
}) => {
  const described = [f.hint ? `${id}-hint` : '', invalid ? errorId : ''].filter(Boolean).join(' ');
  const common = {
    id,
    name: formName(f),
    required: f.required,
    'aria-invalid': invalid ? 'true' : undefined,
    'aria-describedby': described || undefined,
  };
  switch (f.kind) {
    case 'secret':
      // Never given a value: a stored or typed secret does not travel back to the browser.
      return <input {...common} type="password" autocomplete="new-password" />;
    case 'pem':
      return <textarea {...common} rows={5} spellcheck={false} autocomplete="off" class="pem" />;
    case 'port':
      return <input {...common} type="number" min={1} max={65_535} step={1} value={value} />;
    default:
      return <input {...common} autocomplete="off" spellcheck={false} value={value} />;
  }
};

/** The fields of one carrier; `prefix` keeps ids unique across the page's several forms. */
const CredentialInputs: FC<{
  carrier: AnyCarrier;
  prefix: string;
  failure?: CarrierFormFailure;
}> = ({ carrier, prefix, failure }) => {
  const errorId = `${prefix}-error`;
  return (
    <>
      {carrier.fields.map((f) => {
        const name = formName(f);
        const id = `${prefix}-${name}`;
        return (
          <div>
            <label for={id}>
              {f.label}
              {f.required ? '' : ' (optional)'}
            </label>
            <Input
              f={f}
              id={id}
              value={failure?.values[name] ?? ''}
              invalid={failure?.field === name}
              errorId={errorId}
            />
            {f.hint && <small id={`${id}-hint`}>{f.hint}</small>}
          </div>
        );
      })}
    </>
  );
};

export const AddAccountForms: FC<{
  carriers: readonly AnyCarrier[];
  csrf: string;
  failure?: CarrierFormFailure;
}> = ({ carriers, csrf, failure }) => (
  <section id="add" aria-labelledby="add-title">
    <h2 id="add-title">Add an account</h2>
    <p class="muted">
      Credentials are encrypted at rest and never shown again, here or anywhere else. Then choose the account
      for a number on the <a href={`${BASE}/settings#numbers`}>Workspace</a> page.
    </p>
    {carriers.map((carrier) => {
      const { type, label } = carrier;
      const failed = failure?.form === 'add' && failure.type === type ? failure : undefined;
      return (
        <details id={`add-${type}`} open={failed !== undefined} class="carrier-add">
          <summary>{`${label} account`}</summary>
          <FailureNote failure={failed} id={`add-${type}-error`} />
          <form method="post" action={PATH}>
            <Csrf token={csrf} />
            <input type="hidden" name="type" value={type} />
            <CredentialInputs carrier={carrier} prefix={`add-${type}`} failure={failed} />
            <button type="submit">{`Add ${label} account`}</button>
          </form>
        </details>
      );
    })}
  </section>
);

export const RotateForm: FC<{
  csrf: string;
  carrier: AnyCarrier;
  account: { id: string };
  failure?: CarrierFormFailure;
}> = ({ csrf, carrier, account, failure }) => {
  const prefix = `rotate-${account.id}`;
  return (
    <details open={failure !== undefined} class="carrier-rotate">
      <summary>Rotate credentials</summary>
      <p class="small muted">
        Give every credential again: they replace the stored ones, and the next code sent from this account's
        numbers uses them. The numbers, the callback URL and the API address stay as they are.
      </p>
      <FailureNote failure={failure} id={`${prefix}-error`} />
      <form method="post" action={`${PATH}/${encodeURIComponent(account.id)}/rotate`}>
        <Csrf token={csrf} />
        <CredentialInputs carrier={carrier} prefix={prefix} failure={failure} />
        <button type="submit">Save new credentials</button>
      </form>
    </details>
  );
};

/**
 * "Test credentials": one harmless call to the carrier with the stored credentials (docs/carriers.md). Its
 * outcome comes back as the page's notice.
 */
export const TestCredentialsForm: FC<{ csrf: string; label: string; account: { id: string } }> = ({
  csrf,
  label,
  account,
}) => (
  <form
    method="post"
    action={`${PATH}/${encodeURIComponent(account.id)}/test`}
    class="inline-form carrier-test"
  >
    <Csrf token={csrf} />
    <button
      type="submit"
      class="secondary small-button"
      aria-label={`Test the credentials of ${label} account ${account.id}`}
    >
      Test credentials
    </button>
  </form>
);
