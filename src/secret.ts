// The server secret: from PHONE_VERIFY_SECRET, else generated once and kept in the data directory.
// Purpose-bound keys are derived from it with HKDF so one secret serves codes and sealed data (carrier
// credentials, delivery jobs' codes). While it is being changed, PHONE_VERIFY_PREVIOUS_SECRET names the one it
// replaces: the previous secret still opens what it sealed and checks the codes it hashed; only the current one
// seals and hashes (docs/operations.md, "Changing the server secret").
import { hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, makePrivateFile } from './private-files.js';

export const SECRET_FILE = 'phone-verify.secret';

export interface ServerSecrets {
  /** Seals and hashes everything new; opens and checks too. */
  readonly current: string;
  /** The secret being replaced: opens and checks only. */
  readonly previous?: string;
  /** Where the current one comes from, for messages: PHONE_VERIFY_SECRET, or the generated file's path. */
  readonly source: string;
  /** True when this process generated it (the file did not exist): the start-up line says so. */
  readonly generated?: boolean;
}

export function loadOrCreateSecret(
  configured: string | undefined,
  dataDir: string,
  warnings: string[] = [],
): string {
  return readOrCreateSecret(configured, dataDir, warnings).secret;
}

/**
 * Writes a new secret at `file` unless another process got there first; true if this call wrote it. Written whole
 * beside it, then linked into place: a link fails if the file exists, so two processes starting at once keep the
 * first one's secret, and neither can read the file before its secret is in it.
 */
function writeSecretOnce(file: string): boolean {
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(draft, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    unlinkSync(draft);
  }
}

/** The secret, and whether this call generated it. */
function readOrCreateSecret(
  configured: string | undefined,
  dataDir: string,
  warnings: string[],
): { secret: string; generated: boolean } {
  if (configured) return { secret: configured, generated: false };
  const file = join(dataDir, SECRET_FILE);
  makePrivateDir(dataDir, [SECRET_FILE], warnings);
  // An existing secret is only read: its folder need not be writable.
  const generated = !existsSync(file) && writeSecretOnce(file);
  // Made by an older version, or copied in by hand: owner-only from now on.
  makePrivateFile(file, warnings);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32)
    throw new Error(`${file} holds no usable secret: remove it or set PHONE_VERIFY_SECRET`);
  return { secret, generated };
}

/** The current secret (configured or generated) and the previous one; `warnings` gets what is not private. */
export function loadServerSecrets(input: {
  secret?: string;
  previousSecret?: string;
  dataDir: string;
  warnings?: string[];
}): ServerSecrets {
  const { secret: current, generated } = readOrCreateSecret(
    input.secret,
    input.dataDir,
    input.warnings ?? [],
  );
  const source = input.secret ? 'PHONE_VERIFY_SECRET' : join(input.dataDir, SECRET_FILE);
  const previous = input.previousSecret || undefined;
  // Most likely the new secret was put in both places: nothing would be rotated, and nothing would say so.
  if (previous === current) {
    throw new Error(
      `PHONE_VERIFY_PREVIOUS_SECRET is the same as the current secret (${source}): set it to the secret being replaced, or unset it`,
    );
  }
  return { current, previous, source, ...(generated ? { generated } : {}) };
}

export type KeyPurpose = 'code-hash' | 'session' | 'credentials' | 'delivery-jobs' | 'webhook-secrets';

export function deriveKey(secret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'phone-verify', purpose, 32));
}

/** The keys of one purpose, the current secret's first: it alone seals and hashes; the others open and check. */
export type KeyRing = readonly [Buffer, ...Buffer[]];

export function deriveKeys(
  secrets: Pick<ServerSecrets, 'current' | 'previous'>,
  purpose: KeyPurpose,
): KeyRing {
  const current = deriveKey(secrets.current, purpose);
  return secrets.previous === undefined ? [current] : [current, deriveKey(secrets.previous, purpose)];
}
