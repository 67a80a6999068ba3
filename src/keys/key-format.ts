// The API key's shape: `pv_live_` (or `pv_test_` for a test-mode key) + 32 random base62 characters (about 190
// bits) + a 6-character CRC-32 checksum of everything before it, prefix included, so a mistyped or truncated key
// is told apart from an unknown one without a database look-up.
import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { customAlphabet } from 'nanoid';
import type { Mode } from '../vocabulary/modes.js';

export const KEY_PREFIX = 'pv_live_';
export const TEST_KEY_PREFIX = 'pv_test_';
const PREFIXES: Record<Mode, string> = { live: KEY_PREFIX, test: TEST_KEY_PREFIX };
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
// Both prefixes have the same length: the body and checksum sit at the same places in either.
const KEY_SHAPE = new RegExp(`^pv_(?:live|test)_[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
const randomPart = customAlphabet(ALPHABET, RANDOM_LENGTH);

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateKey(mode: Mode = 'live'): string {
  const body = PREFIXES[mode] + randomPart();
  return body + checksum(body);
}

export function isWellFormedKey(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === key.slice(-CHECKSUM_LENGTH);
}

/** The mode a well-formed key's prefix names. */
export function modeOfKey(key: string): Mode {
  return key.startsWith(TEST_KEY_PREFIX) ? 'test' : 'live';
}

/** Keys carry about 190 random bits, so a plain SHA-256 is enough: there is nothing to brute-force. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What lists show so a person can recognise a key: the prefix (which names its mode) and four characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}
