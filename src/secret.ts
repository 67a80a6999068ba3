// The server secret: from PHONE_VERIFY_SECRET, else generated once and kept in the data directory.
// Purpose-bound keys are derived from it with HKDF so one secret serves codes, sessions and credentials.
import { hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, makePrivateFile } from './private-files.js';

export const SECRET_FILE = 'phone-verify.secret';

export function loadOrCreateSecret(
  configured: string | undefined,
  dataDir: string,
  warnings: string[] = [],
): string {
  if (configured) return configured;
  const file = join(dataDir, SECRET_FILE);
  makePrivateDir(dataDir, [SECRET_FILE], warnings);
  try {
    // 'wx' fails if the file exists, so two processes starting at once keep the first one's secret.
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // Made by an older version, or copied in by hand: owner-only from now on.
  makePrivateFile(file, warnings);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32)
    throw new Error(`${file} holds no usable secret: remove it or set PHONE_VERIFY_SECRET`);
  return secret;
}

export type KeyPurpose = 'code-hash' | 'session' | 'credentials' | 'delivery-jobs';

export function deriveKey(secret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'phone-verify', purpose, 32));
}
