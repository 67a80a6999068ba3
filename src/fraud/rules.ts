// The pumping guard's rules, in one place: what a number range is, the settings' defaults and bounds, and what an
// allow-list prefix may be. Pure functions; the service and the repository apply them.
import { invalidField } from '../errors.js';
import { type Country, SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';

/** Digits a range leaves off: numbers that share all but their last 3 digits are one range (a block of 1,000). */
export const RANGE_SUFFIX_DIGITS = 3;

/** The range of an E.164 number: the number minus its last 3 digits (`+61412345678` -> `+61412345`). */
export function rangeOf(e164: string): string {
  return e164.slice(0, -RANGE_SUFFIX_DIGITS);
}

export const FRAUD_DEFAULTS = {
  range_limit: 10,
  range_window_seconds: 600,
  block_seconds: 3600,
  conversion_sends: 50,
  conversion_percent: 10,
  // A country's share moves slowly and mixes honest traffic: judged over many codes, blocked only when nearly none
  // are verified (docs/api.md "The conversion signal"), so a few unchecked codes never block real users.
  country_conversion_sends: 200,
  country_conversion_percent: 5,
} as const;

export type FraudSettingName = keyof typeof FRAUD_DEFAULTS;
export type FraudLimits = Record<FraudSettingName, number>;

/**
 * Bounds of each setting: a limit of 1 blocks a range at its second number; a block lasts at most a week; the
 * conversion signal judges 10 to 1,000 finished sends of a range, 10 to 10,000 of a country (fewer say nothing;
 * more than a day's worth rarely exist, it looks back 24 hours), and a percent of 0 turns it off.
 */
export const FRAUD_RANGES: Record<FraudSettingName, { min: number; max: number }> = {
  range_limit: { min: 1, max: 1000 },
  range_window_seconds: { min: 60, max: 86_400 },
  block_seconds: { min: 60, max: 604_800 },
  conversion_sends: { min: 10, max: 1000 },
  conversion_percent: { min: 0, max: 100 },
  country_conversion_sends: { min: 10, max: 10_000 },
  country_conversion_percent: { min: 0, max: 100 },
};

/**
 * A block's key: a range (`+` and digits) or a country (its two letters; no range starts with a letter). Both are
 * kept in the same tables (fraud_ranges' row, fraud_blocks' range_prefix), so a send reads both in one statement.
 */
export function isCountryKey(key: string): boolean {
  return !key.startsWith('+');
}

/** A country to lift: one of the served countries' two letters, as `fraud blocks` lists it. */
export function validateCountry(input: unknown, field = 'country'): Country {
  if (typeof input !== 'string' || !SUPPORTED_COUNTRIES.includes(input as Country)) {
    throw invalidField(field, `must be one of ${SUPPORTED_COUNTRIES.join(', ')}`);
  }
  return input as Country;
}

/** Why a range is blocked: the velocity rule tripped at a send, or the conversion signal judged it off the send path. */
export type BlockReason = 'range_velocity' | 'low_conversion';

/** How far back the conversion signal looks: a day of finished sends, read by the created_at index. */
export const CONVERSION_LOOKBACK_MS = 86_400_000;

/** The conversion rule: at least `sends` judged and fewer than `percent` of them verified (percent 0: never). */
export function isLowConversion(judged: number, verified: number, sends: number, percent: number): boolean {
  return percent > 0 && judged >= sends && verified * 100 < percent * judged;
}

/** A whole number inside the setting's bounds, else 400 naming it. */
export function validateSetting(name: FraudSettingName, value: unknown): number {
  const { min, max } = FRAUD_RANGES[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidField(name, `must be a whole number from ${min} to ${max.toLocaleString('en-US')}`);
  }
  return value;
}

/** At most this many allow-list entries per workspace: the send checks them all (an index range, kept short). */
export const MAX_ALLOW_ENTRIES = 200;

/**
 * An allow-list entry: `+` and 1 to 15 digits (a whole E.164 number, or any prefix of one: a range, a country).
 * Spaces are tolerated and dropped; nothing else is, so no other character ever reaches a comparison.
 */
export function validatePrefix(input: unknown, field = 'prefix'): string {
  if (typeof input !== 'string') throw invalidField(field, 'must be a string');
  const prefix = input.replace(/ /g, '');
  if (!/^\+[1-9][0-9]{0,14}$/.test(prefix)) {
    throw invalidField(field, 'must be + and 1 to 15 digits (an E.164 number or the start of one)');
  }
  return prefix;
}

/** A range to lift: + and digits, as `fraud blocks` lists it. */
export function validateRange(input: unknown, field = 'range'): string {
  return validatePrefix(input, field);
}
