// The country of a number prefix ("+6149", "+1416"), for verifications written before the country was kept.
import { SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';
import { callingCodeOf, countryOfNumber } from '../workspaces/phone-number.js';

// A valid-looking subscriber part, so libphonenumber can tell the +1 countries apart by their area code.
const SAMPLE_SUBSCRIBER = '5550123';

/** The ISO country for a prefix of an E.164 number; the bare calling code ("+1") where it cannot tell. */
export function countryOfPrefix(prefix: string): string {
  const matching = SUPPORTED_COUNTRIES.filter((c) => prefix.startsWith(`+${callingCodeOf(c)}`));
  const only = matching.length === 1 ? matching[0] : undefined;
  if (only) return only;
  const guessed = countryOfNumber(`${prefix}${SAMPLE_SUBSCRIBER}`);
  if (guessed && matching.includes(guessed)) return guessed;
  const callingCode = matching[0] ? callingCodeOf(matching[0]) : undefined;
  return callingCode ? `+${callingCode}` : 'Other';
}
