// Carrier credentials at rest: AES-256-GCM under deriveKey(secret, 'credentials'), the account id as
// additional data, so a ciphertext copied onto another account's row fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;

/** The sealed text does not open: altered, sealed under another secret, or for another account. */
export class CredentialsUnreadableError extends Error {
  constructor(accountId: string) {
    super(`the credentials of carrier account ${accountId} cannot be decrypted`);
    this.name = 'CredentialsUnreadableError';
  }
}
const TAG_BYTES = 16;

/** base64url of iv | tag | ciphertext. */
export function encryptCredentials(key: Buffer, accountId: string, credentials: object): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(accountId, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Throws when the text was altered, the key differs or the account id is not the one it was sealed for. */
export function decryptCredentials(key: Buffer, accountId: string, sealed: string): Record<string, unknown> {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new CredentialsUnreadableError(accountId);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(accountId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new CredentialsUnreadableError(accountId);
  }
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}
