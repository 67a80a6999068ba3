// The data directory holds phone numbers, delivery metadata, the development outbox's codes and the generated
// server secret: it is the owner's alone (0700, its files 0600), whatever the umask, and an older install's
// 0755/0644 are tightened at each start. Where the process cannot (it does not own a file, a read-only mount),
// it says so in a warning and goes on: refusing would stop a service that works.
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EPERM' ? 'EPERM: the process does not own it' : (code ?? String(err));
}

/** Sets `mode` where the path is open to group or others; a warning where that fails. */
function tighten(path: string, mode: number, warnings: string[]): void {
  let current: number;
  try {
    current = statSync(path).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // A mode that is already owner-only (0600, 0400) stays as the operator set it.
  if ((current & 0o077) === 0) return;
  try {
    chmodSync(path, mode);
  } catch (err) {
    warnings.push(
      `${path} is open to other users (mode ${octal(current)}) and could not be made ${octal(mode)} (${reason(err)}): run chmod ${octal(mode).slice(1)} on it as its owner`,
    );
  }
}

/**
 * Creates `dir` (and missing parents) owner-only. An existing one open to others is tightened only when it holds
 * nothing but `ownFiles`: a folder the operator shares with other things (the database beside a project, say)
 * is never changed, only warned about.
 */
export function makePrivateDir(dir: string, ownFiles: readonly string[], warnings: string[]): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  if (created !== undefined) {
    // The umask may have taken bits from the mode given (an owner without write would be worse than none).
    chmodSync(dir, PRIVATE_DIR);
    return;
  }
  const mode = statSync(dir).mode & 0o777;
  // Already private, or already reported (the database's folder, seen again as the secret's).
  if ((mode & 0o077) === 0 || warnings.some((w) => w.startsWith(`${dir} `))) return;
  const others = readdirSync(dir).filter((name) => !ownFiles.includes(name));
  if (others.length > 0) {
    warnings.push(
      `${dir} is open to other users (mode ${octal(mode)}) and also holds files that are not phone-verify's, so it is left as it is: give the service a directory of its own, or run chmod 700 on it`,
    );
    return;
  }
  tighten(dir, PRIVATE_DIR, warnings);
}

/** Makes an existing file owner-only (0600). */
export function makePrivateFile(path: string, warnings: string[]): void {
  tighten(path, PRIVATE_FILE, warnings);
}

/** Creates the file empty and owner-only if it is missing, before anything else writes to it; else tightens it. */
export function createPrivateFile(path: string, warnings: string[]): void {
  try {
    // 'wx': created here, or it already existed (then only tightened).
    closeSync(openSync(path, 'wx', PRIVATE_FILE));
    chmodSync(path, PRIVATE_FILE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    tighten(path, PRIVATE_FILE, warnings);
  }
}
