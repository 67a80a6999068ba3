// Phone numbers: parsed with libphonenumber's full metadata, always returned as E.164. The one module that
// imports libphonenumber: the rest of the code asks it.
import { getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { AppError } from '../errors.js';
import { type Country, SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';
import type { NumberType } from '../vocabulary/number-types.js';

export interface ParsedPhone {
  e164: string;
  country: Country;
}

/**
 * Ranges that are no destination for a one-time code: the caller pays a premium or shares the cost, or the number
 * forwards to wherever its holder says (personal numbers, pagers, UAN). They are where SMS pumping and toll fraud
 * send codes, and no person verifying a phone of their own has one (docs/security.md).
 */
const REFUSED_DESTINATION_TYPES = {
  PREMIUM_RATE: 'premium-rate',
  SHARED_COST: 'shared-cost',
  UAN: 'universal access (UAN)',
  PAGER: 'pager',
  PERSONAL_NUMBER: 'personal-number',
} as const;

function isSupported(country: string | undefined): country is Country {
  return SUPPORTED_COUNTRIES.includes(country as Country);
}

/**
 * A number given as a string. International form ("+…") is taken as it is and `country` is ignored; a national
 * number needs `defaultCountry` (the request's `country`, else the workspace number's country).
 */
export function parsePhone(
  input: string,
  defaultCountry: Country | undefined,
  allowed: readonly Country[] = SUPPORTED_COUNTRIES,
): ParsedPhone {
  const { e164, country } = parseValid(input, defaultCountry, allowed);
  return { e164, country };
}

/**
 * A number a code is to be sent to: as parsePhone, with the refusal (403 destination_blocked, reason number_type)
 * when it is in a range no code goes to. The caller throws it, having recorded the refused send.
 */
export function parseDestination(
  input: string,
  defaultCountry: Country | undefined,
  allowed: readonly Country[] = SUPPORTED_COUNTRIES,
): ParsedPhone & { refusal: AppError | undefined } {
  const { e164, country, type } = parseValid(input, defaultCountry, allowed);
  if (type !== undefined && type in REFUSED_DESTINATION_TYPES) {
    const kind = REFUSED_DESTINATION_TYPES[type as keyof typeof REFUSED_DESTINATION_TYPES];
    const refusal = new AppError(
      'destination_blocked',
      `${e164} is a ${kind} number: codes are not sent to ${kind} numbers, on any channel.`,
      { reason: 'number_type' },
    );
    return { e164, country, refusal };
  }
  return { e164, country, refusal: undefined };
}

function parseValid(input: string, defaultCountry: Country | undefined, allowed: readonly Country[]) {
  const international = input.trim().startsWith('+');
  if (!international && !defaultCountry) {
    throw new AppError(
      'invalid_phone',
      'A national-format number needs `country`; or give the number in E.164 form, e.g. +61491570156.',
    );
  }
  const parsed = parsePhoneNumberFromString(input, international ? undefined : defaultCountry);
  // A number whose type the metadata knows is valid (with type data, isValid() is exactly "getType() is
  // defined", and computes the type to say so): the type is computed once, and isValid() asked only without it.
  const type = parsed?.getType();
  if (!parsed || (type === undefined && !parsed.isValid())) {
    throw new AppError('invalid_phone', `${JSON.stringify(input)} is not a valid phone number.`);
  }
  const country = parsed.country;
  if (!isSupported(country) || !allowed.includes(country)) {
    throw new AppError(
      'unsupported_country',
      `Numbers of ${country ?? `+${parsed.countryCallingCode}`} are not supported here; allowed: ${allowed.join(', ')}.`,
    );
  }
  return { e164: parsed.number, country, type };
}

/** The number's type where the metadata is certain of it; undefined where it is not (US/CA numbers). */
export function detectNumberType(e164: string): NumberType | undefined {
  switch (parsePhoneNumberFromString(e164)?.getType()) {
    case 'MOBILE':
      return 'mobile';
    case 'FIXED_LINE':
      return 'landline';
    case 'TOLL_FREE':
      return 'toll_free';
    case 'SHARED_COST':
      return 'local_rate';
    default:
      return undefined;
  }
}

/** The country calling code of a served country, without "+" ("61" for AU). */
export function callingCodeOf(country: Country): string {
  return getCountryCallingCode(country);
}

/** The served country a number (E.164, or a "+" prefix padded to one) belongs to; undefined where unknown. */
export function countryOfNumber(e164: string): Country | undefined {
  const country = parsePhoneNumberFromString(e164)?.country;
  return isSupported(country) ? country : undefined;
}

/** The calling codes of the served countries. ITU's codes are prefix-free: at most one of them starts a number. */
const SERVED_CALLING_CODES = new Set(SUPPORTED_COUNTRIES.map((country) => getCountryCallingCode(country)));

/** E.164 as stored: "+", a first digit other than 0, 8 to 15 digits in all (no served number is shorter). */
const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * A number's calling code and national digits (both without "+"), or undefined where it does not parse. A number in
 * E.164 of a served country (every stored verification's: parsePhone wrote it) splits at its calling code without a
 * parse, which takes 15 to 25 µs a number and was 8% of a log page's CPU (docs/benchmarks.md); its national digits
 * are the rest, as the parse would give them (test/workspaces/phone-number.test.ts holds the two to each other).
 */
export function splitNumber(
  e164: string,
): { countryCallingCode: string; nationalNumber: string } | undefined {
  if (E164.test(e164)) {
    for (let length = 1; length <= 3; length++) {
      const code = e164.slice(1, 1 + length);
      if (SERVED_CALLING_CODES.has(code))
        return { countryCallingCode: code, nationalNumber: e164.slice(1 + length) };
    }
  }
  const parsed = parsePhoneNumberFromString(e164);
  return parsed
    ? { countryCallingCode: parsed.countryCallingCode, nationalNumber: parsed.nationalNumber }
    : undefined;
}

/** A number in international form for people to read ("+61 491 570 156"); as given where it does not parse. */
export function formatInternational(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}

/** What a typed whole number may hold besides digits: "+", spaces and the usual separators (no letters). */
const TYPED_NUMBER = /^\+?[\d\s().-]+$/;

/**
 * The E.164 form of a whole number typed into a search box (international, or national in `defaultCountry`) of a
 * served country; undefined for anything else. Never throws: the input is whatever a user typed.
 */
export function wholeNumber(input: string, defaultCountry: Country | undefined): string | undefined {
  const typed = input.trim();
  // Letters would be read as a vanity number ("1-800-FLOWERS"); a search box means the digits it shows.
  if (!TYPED_NUMBER.test(typed)) return undefined;
  const international = typed.startsWith('+');
  if (!international && !defaultCountry) return undefined;
  const parsed = parsePhoneNumberFromString(typed, international ? undefined : defaultCountry);
  return parsed?.isValid() && isSupported(parsed.country) ? parsed.number : undefined;
}

/** The calling codes of the served countries, without "+", each once ("61", "1", "44", "64"). */
export function servedCallingCodes(): string[] {
  return [...new Set(SUPPORTED_COUNTRIES.map(callingCodeOf))];
}
