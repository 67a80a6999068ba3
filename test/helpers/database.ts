// Which store the suite runs against (scripts/run-tests.mjs sets TEST_STORE), and a database per test app:
// a SQLite file in the app's directory, or a PostgreSQL database named after that directory, created on
// demand inside the run's namespace (TEST_PG_RUN) and dropped by the runner at the end.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/store/tables.js';

export type TestStore = 'sqlite' | 'postgres';
export const TEST_STORE: TestStore = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUN = process.env.TEST_PG_RUN ?? `pv_test_${process.pid}`;

function pgDatabaseName(dir: string): string {
  return `${RUN}_${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`;
}

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The DATABASE_URL of the test database that belongs to `dir`. */
export function databaseUrlFor(dir: string): string {
  return TEST_STORE === 'postgres'
    ? withDatabase(PG_ADMIN_URL, pgDatabaseName(dir))
    : `sqlite:${join(dir, 'test.db')}`;
}

const CREATE = `
  const pg = require('pg');
  const [admin, name] = process.argv.slice(1);
  const c = new pg.Client({ connectionString: admin });
  c.connect()
    .then(() => c.query('CREATE DATABASE "' + name + '"'))
    .catch((e) => { if (e.code !== '42P04') { console.error(e.message); process.exitCode = 1; } })
    .finally(() => c.end());
`;

/** Creates the PostgreSQL database of `dir` if it does not exist (a no-op for SQLite). */
export async function ensureDatabase(dir: string): Promise<void> {
  if (TEST_STORE !== 'postgres') return;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${pgDatabaseName(dir)}"`);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // 42P04: it already exists
  } finally {
    await client.end();
  }
}

/** The same, for synchronous set-up code (the CLI tests' fresh environments). */
export function ensureDatabaseSync(dir: string): void {
  if (TEST_STORE !== 'postgres') return;
  const result = spawnSync(process.execPath, ['-e', CREATE, PG_ADMIN_URL, pgDatabaseName(dir)], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`could not create the test database: ${result.stderr}`);
}

/** Drops the PostgreSQL database of `dir` (a no-op for SQLite, whose file goes with the directory). */
export async function dropDatabase(dir: string): Promise<void> {
  if (TEST_STORE !== 'postgres') return;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${pgDatabaseName(dir)}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * The database at `url` on a plain Kysely, none of the service's drivers (group commit, pipelining): for tests that
 * make it as an older release left it, and migrate it step by step.
 */
export function openPlainDatabase(url: string): Kysely<Database> {
  return new Kysely<Database>({
    dialect:
      TEST_STORE === 'postgres'
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) })
        : new SqliteDialect({ database: new SQLite(url.slice('sqlite:'.length)) }),
  });
}
