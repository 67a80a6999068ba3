// Carrier credentials at rest: sealed (src/sealing.ts) under deriveKeys(secrets, 'credentials'), the account id
// as additional data, so a ciphertext copied onto another account's row fails to open.
import { seal, unsealWithAny } from '../sealing.js';
import type { KeyRing } from '../secret.js';

/** The sealed text does not open: altered, sealed under another secret, or for another account. */
export class CredentialsUnreadableError extends Error {
  constructor(accountId: string) {
    super(`the credentials of carrier account ${accountId} cannot be decrypted`);
    this.name = 'CredentialsUnreadableError';
  }
}

/** Sealed under the ring's current key. */
export function encryptCredentials(keys: KeyRing, accountId: string, credentials: object): string {
  return seal(keys[0], accountId, JSON.stringify(credentials));
}

/** Throws when the text was altered, no key of the ring opens it or the account id is not the one it was sealed for. */
export function decryptCredentials(
  keys: KeyRing,
  accountId: string,
  sealed: string,
): Record<string, unknown> {
  const opened = unsealWithAny(keys, accountId, sealed);
  if (opened === undefined) throw new CredentialsUnreadableError(accountId);
  return JSON.parse(opened.plain) as Record<string, unknown>;
}
