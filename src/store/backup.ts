// `db backup`: a copy of the SQLite file through SQLite's online backup API, safe while a server writes to it.
// The pages are copied in one step, under one read transaction (WAL: writers go on meanwhile), so the copy is
// one instant of the database; it is written beside the destination, owner-only, and moved into place only
// once complete, so a failed or interrupted backup never leaves a half-written file under the name given.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, linkSync, openSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { AppError, invalidField } from '../errors.js';
import { parseDatabaseUrl } from './database.js';

export interface BackupReport {
  database: string;
  file: string;
  bytes: number;
}

/** Longer than any path an operator types: refused before use. */
const MAX_PATH = 4096;

/** The one-line answer on PostgreSQL: its own tools do this better (docs/operations.md, "Backups"). */
export const POSTGRES_BACKUP_HINT =
  'db backup copies a SQLite database; on PostgreSQL use pg_dump: pg_dump --format=custom --file=FILE "$DATABASE_URL" (docs/operations.md#backups)';

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes(String((err as NodeJS.ErrnoException).code))) return undefined;
    throw err;
  }
}

function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'its directory does not exist';
  if (code === 'ENOSPC') return 'no space left on the device';
  return err instanceof Error ? err.message : String(err);
}

export async function backupSqlite(input: {
  databaseUrl: string;
  to: string;
  force?: boolean;
}): Promise<BackupReport> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL above all) are what is refused
  if (/[\u0000-\u001f\u007f]/.test(input.to)) throw invalidField('to', 'must not hold control characters');
  if (input.to.length > MAX_PATH) throw invalidField('to', `must be at most ${MAX_PATH} characters`);
  const { dialect, target } = parseDatabaseUrl(input.databaseUrl);
  if (dialect === 'postgres') throw new AppError('invalid_request', POSTGRES_BACKUP_HINT);
  if (target === '' || target === ':memory:')
    throw new AppError(
      'invalid_request',
      'DATABASE_URL names an in-memory database: there is no file to back up',
    );
  const source = resolve(target);
  const file = resolve(input.to);
  const sourceStat = statOf(source);
  if (!sourceStat) throw new AppError('invalid_request', `no database at ${source} (DATABASE_URL)`);
  const existing = statOf(file);
  if (existing?.isDirectory()) throw invalidField('to', `${file} is a directory`);
  if (existing && existing.dev === sourceStat.dev && existing.ino === sourceStat.ino)
    throw invalidField('to', 'is the database itself');
  if (existing && !input.force) throw invalidField('to', `${file} exists: pass --force to replace it`);

  const partial = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    // Owner-only from its first byte: it holds everything the database does.
    closeSync(openSync(partial, 'wx', 0o600));
    chmodSync(partial, 0o600);
  } catch (err) {
    throw invalidField('to', `cannot write in ${dirname(file)}: ${fsReason(err)}`);
  }
  let db: SQLite.Database | undefined;
  try {
    db = new SQLite(source, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    // After the first (empty) step, every remaining page in one step: one read transaction, one instant.
    await db.backup(partial, { progress: () => 0x7fffffff });
    db.close();
    db = undefined;
    // Without --force, link() refuses a file that appeared meanwhile; rename() replaces it in one step.
    if (input.force) renameSync(partial, file);
    else {
      linkSync(partial, file);
      unlinkSync(partial);
    }
  } catch (err) {
    db?.close();
    try {
      unlinkSync(partial);
    } catch {}
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw invalidField('to', `${file} exists: pass --force to replace it`);
    throw new AppError('invalid_request', `the backup failed: ${fsReason(err)}`);
  }
  return { database: `sqlite:${source}`, file, bytes: statSync(file).size };
}
