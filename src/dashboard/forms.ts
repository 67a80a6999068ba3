// Form bodies (application/x-www-form-urlencoded) and how a failed form action is answered: the form is shown
// again with the reason, under the status the failure carries.
import { AppError } from '../errors.js';

export type FormBody = Record<string, string | string[] | undefined> | undefined;

/** One text field of a form body; '' when absent. */
export function field(body: FormBody, name: string): string {
  const value = body?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value of a repeated field (checkbox groups). */
export function fields(body: FormBody, name: string): string[] {
  const value = body?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The status for re-showing a form after `err`; anything that is not a known, expected failure is re-thrown. */
export function formError(err: unknown): number {
  if (err instanceof AppError && err.status < 500) return err.status;
  throw err;
}
