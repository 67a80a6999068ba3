// Carrier credentials at rest: sealed (src/sealing.ts) under deriveKey(secret, 'credentials'), the account id as
// additional data, so a ciphertext copied onto another account's row fails to open.
import { seal, unseal } from '../sealing.js';

/** The sealed text does not open: altered, sealed under another secret, or for another account. */
export class CredentialsUnreadableError extends Error {
  constructor(accountId: string) {
    super(`the credentials of carrier account ${accountId} cannot be decrypted`);
    this.name = 'CredentialsUnreadableError';
  }
}

export function encryptCredentials(key: Buffer, accountId: string, credentials: object): string {
  return seal(key, accountId, JSON.stringify(credentials));
}

/** Throws when the text was altered, the key differs or the account id is not the one it was sealed for. */
export function decryptCredentials(key: Buffer, accountId: string, sealed: string): Record<string, unknown> {
  const plain = unseal(key, accountId, sealed);
  if (plain === undefined) throw new CredentialsUnreadableError(accountId);
  return JSON.parse(plain) as Record<string, unknown>;
}
