// Secrets at rest (carrier credentials, the code a delivery job still has to hand over): AES-256-GCM under a
// key derived from the server secret, with the owning row's id as additional data, so a sealed value copied
// onto another row fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyObject } from './key-object.js';

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
