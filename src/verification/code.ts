// One-time codes: uniform over all `length`-digit strings (leading zeros allowed), from the CSPRNG.
// Only a keyed hash is kept, bound to the verification's id, and compared in constant time.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { keyObject } from '../key-object.js';
import type { KeyRing } from '../secret.js';

export function generateCode(length: number): string {
  // randomInt draws without modulo bias, so every code of the length is equally likely.
  return randomInt(0, 10 ** length)
    .toString()
    .padStart(length, '0');
}

export function hashCode(key: Buffer, verificationId: string, code: string): string {
  return createHmac('sha256', keyObject(key)).update(`${verificationId}:${code}`).digest('hex');
}

/**
 * Whether the code hashes to the stored hash under any key of the ring: a code sent before the server secret
 * changed is checked with the previous secret's key while that is set. Every key is tried, match or not.
 */
export function codeMatches(
  keys: KeyRing,
  verificationId: string,
  code: string,
  storedHash: string,
): boolean {
  const stored = Buffer.from(storedHash, 'hex');
  let matches = false;
  for (const key of keys) {
    const given = Buffer.from(hashCode(key, verificationId, code), 'hex');
    if (given.length === stored.length && timingSafeEqual(given, stored)) matches = true;
  }
  return matches;
}
