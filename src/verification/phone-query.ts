// What a number typed into the log's search box asks for, decided before any SQL: a whole number is one exact
// value of the (workspace_id, phone) index; a partial one is a few ranges of that index (where the digits may
// start the number) plus a suffix (where they may end it, found through the phone directory). Digits in the
// middle of a number, matched before the index, are no longer found (docs/dashboard.md, "Phone search").
import type { Country } from '../vocabulary/countries.js';
import { servedCallingCodes, wholeNumber } from '../workspaces/phone-number.js';

export type PhoneQuery =
  /** No digits: the phone filter is off. */
  | { kind: 'any' }
  /** A whole number (E.164, or national in the workspace's default country). */
  | { kind: 'whole'; phone: string }
  /** E.164 prefixes the number may start with, and the digits it may end with. */
  | { kind: 'partial'; prefixes: string[]; suffix: string | undefined };

/**
 * "+61 4…" is the start of the E.164 form, as typed. Digits without "+" are the start of the national number in
 * any served country (a national trunk prefix dropped: "0412" finds +61412…), the start of the E.164 digits
 * ("61412" finds +61412…), or the end of the number ("156" finds …156).
 */
export function phoneQuery(input: string, defaultCountry: Country | undefined): PhoneQuery {
  const digits = input.replace(/\D/g, '');
  if (digits === '') return { kind: 'any' };
  const whole = wholeNumber(input, defaultCountry);
  if (whole) return { kind: 'whole', phone: whole };
  if (input.trim().startsWith('+')) return { kind: 'partial', prefixes: [`+${digits}`], suffix: undefined };
  const national = digits.replace(/^0+(?=\d)/, '');
  const prefixes = new Set(servedCallingCodes().map((code) => `+${code}${national}`));
  // No calling code starts with 0.
  if (!digits.startsWith('0')) prefixes.add(`+${digits}`);
  return { kind: 'partial', prefixes: [...prefixes], suffix: national };
}

/**
 * The greatest string of digits that starts with `start` (as long as any number): with `start` itself, the bounds
 * of a range that holds exactly the strings of digits that start with it, in any collation that orders digits.
 */
export function upperBoundOf(start: string): string {
  return `${start}${'9'.repeat(16)}`;
}
