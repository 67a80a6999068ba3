// The database client: SQLite (embedded default) or PostgreSQL, chosen by DATABASE_URL, migrated at open.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.js';
import type { Database } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Where local state (the generated secret) is kept. */
  readonly dataDir: string;
  close(): Promise<void>;
}

export type Db = Kysely<Database>;

export function parseDatabaseUrl(url: string): { dialect: Dialect; target: string } {
  if (url.startsWith('sqlite:')) return { dialect: 'sqlite', target: url.slice('sqlite:'.length) };
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', target: url };
  throw new Error('DATABASE_URL must start with sqlite:, postgres:// or postgresql://');
}

function openSqlite(path: string): Kysely<Database> {
  const memory = path === ':memory:' || path === '';
  if (!memory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SQLite(memory ? ':memory:' : path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // The CLI and the server share the file: wait for the other's write instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}

// PostgreSQL bigint (epoch milliseconds) arrives as a string by default; every value here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

function openPostgres(url: string): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export async function openStore(databaseUrl: string): Promise<Store> {
  const { dialect, target } = parseDatabaseUrl(databaseUrl);
  const db = dialect === 'sqlite' ? openSqlite(target) : openPostgres(target);
  const dataDir = dialect === 'sqlite' && target !== ':memory:' ? dirname(resolve(target)) : resolve('data');
  try {
    await migrateToLatest(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, dialect, dataDir, close: () => db.destroy() };
}
