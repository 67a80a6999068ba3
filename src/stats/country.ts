// The country of a number prefix ("+6149", "+1416"), for verifications written before the country was kept.
import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { SUPPORTED_COUNTRIES } from '../workspaces/countries.js';

// A valid-looking subscriber part, so libphonenumber can tell the +1 countries apart by their area code.
const SAMPLE_SUBSCRIBER = '5550123';

/** The ISO country for a prefix of an E.164 number; the bare calling code ("+1") where it cannot tell. */
export function countryOfPrefix(prefix: string): string {
  const matching = SUPPORTED_COUNTRIES.filter((c) =>
    prefix.startsWith(`+${getCountryCallingCode(c as CountryCode)}`),
  );
  const only = matching.length === 1 ? matching[0] : undefined;
  if (only) return only;
  const guessed = parsePhoneNumberFromString(`${prefix}${SAMPLE_SUBSCRIBER}`)?.country;
  if (guessed && matching.includes(guessed as (typeof matching)[number])) return guessed;
  const callingCode = matching[0] ? getCountryCallingCode(matching[0] as CountryCode) : undefined;
  return callingCode ? `+${callingCode}` : 'Other';
}
