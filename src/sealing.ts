// Secrets at rest (carrier credentials, the code a delivery job still has to hand over): AES-256-GCM under a
// key derived from the server secret, with the owning row's id as additional data, so a sealed value copied
// onto another row fails to open. While the secret is being changed, the previous one's key still opens what it
// sealed, and `resealAll` moves those values to the current key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyObject } from './key-object.js';
import type { KeyRing } from './secret.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** base64url of iv | tag | ciphertext. */
export function seal(key: Buffer, ownerId: string, plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), iv);
  cipher.setAAD(Buffer.from(ownerId, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plain text; undefined when the value was altered, sealed under another key or for another owner. */
export function unseal(key: Buffer, ownerId: string, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', keyObject(key), bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(ownerId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}

/** What the first key of a ring that opens a sealed value gives: the plain text, and whether that key is the current one. */
export interface Opened {
  plain: string;
  current: boolean;
}

export function unsealWithAny(keys: KeyRing, ownerId: string, sealed: string): Opened | undefined {
  for (const [i, key] of keys.entries()) {
    const plain = unseal(key, ownerId, sealed);
    if (plain !== undefined) return { plain, current: i === 0 };
  }
  return undefined;
}

/** Sealed values of one kind against a key ring (`secret reseal`, the start-up check). */
export interface ResealTally {
  total: number;
  /** Sealed again under the current key (they opened only with the previous one). */
  resealed: number;
  /** The owners of values no key opens. */
  unreadable: string[];
}

/**
 * Seals again, under the ring's current key, every value that only an older key opens; `write` stores one unless
 * the row changed meanwhile (false: it did, and what is there now was written with the current key). Without
 * `write`, only counts: `resealed` is then what would be.
 */
export async function resealAll(
  keys: KeyRing,
  rows: readonly { owner: string; sealed: string }[],
  write?: (owner: string, from: string, to: string) => Promise<boolean>,
): Promise<ResealTally> {
  const tally: ResealTally = { total: rows.length, resealed: 0, unreadable: [] };
  for (const { owner, sealed } of rows) {
    const opened = unsealWithAny(keys, owner, sealed);
    if (opened === undefined) tally.unreadable.push(owner);
    else if (!opened.current && (!write || (await write(owner, sealed, seal(keys[0], owner, opened.plain)))))
      tally.resealed++;
  }
  return tally;
}
