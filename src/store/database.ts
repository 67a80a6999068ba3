// The database client: SQLite (embedded default) or PostgreSQL, chosen by DATABASE_URL, migrated at open.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { type DatabaseOptions, DEFAULT_DATABASE_POOL_MAX, DEFAULT_STATEMENT_TIMEOUT_MS } from '../config.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { openSqliteReader } from './read-worker.js';
import { cacheSqliteStatements, prepareNamedStatements } from './statement-cache.js';
import type { Database } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  /**
   * For heavy reads (the dashboard's read-models): on SQLite a reader thread with its own connection, so they
   * never hold the serving thread; on PostgreSQL the same database as `db`.
   */
  readonly reader: Kysely<Database>;
  readonly dialect: Dialect;
  /** Where local state (the generated secret) is kept. */
  readonly dataDir: string;
  /** Ready to serve: the database answers and every migration is applied. Throws otherwise. */
  checkReady(): Promise<void>;
  close(): Promise<void>;
}

export type Db = Kysely<Database>;

export function parseDatabaseUrl(url: string): { dialect: Dialect; target: string } {
  if (url.startsWith('sqlite:')) return { dialect: 'sqlite', target: url.slice('sqlite:'.length) };
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', target: url };
  throw new Error('DATABASE_URL must start with sqlite:, postgres:// or postgresql://');
}

/**
 * Kysely takes no migration lock on SQLite (it assumes one process). Several processes may start on one file,
 * so the migration run holds SQLite's write lock (BEGIN IMMEDIATE): the others wait (busy_timeout), then
 * find nothing pending.
 */
class MigrationLockingSqliteAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin immediate`.execute(db);
  }
  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`commit`.execute(db);
  }
}

class MigrationLockingSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new MigrationLockingSqliteAdapter();
  }
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
  // Checkpoint every ~40 MB of WAL instead of every 4 MB: a page written by many commits (an index's hot leaf)
  // is copied back once per checkpoint, so sends commit measurably faster (docs/benchmarks.md). The file is
  // truncated back to this size after a checkpoint, so it does not stay at its largest.
  sqlite.pragma('wal_autocheckpoint = 10000');
  sqlite.pragma(`journal_size_limit = ${40 * 1024 * 1024}`);
  return new Kysely<Database>({
    dialect: new MigrationLockingSqliteDialect({ database: cacheSqliteStatements(sqlite) }),
  });
}

// PostgreSQL bigint (epoch milliseconds) arrives as a string by default; every value here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

function openPostgres(url: string, options: DatabaseOptions): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? DEFAULT_DATABASE_POOL_MAX,
    // Fail fast when the database is unreachable: the request gets a 503, never a hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    // A lock wait is bounded too: contention degrades into a 503, not a pile-up.
    lock_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    query_timeout: (options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS) + 2000,
    application_name: 'phone-verify',
  });
  // A connection the server drops (restart, failover, pg_terminate_backend) must not crash the process. Idle,
  // the pool reports it here and discards it. Checked out by a request, the client emits 'error' while its
  // query rejects: the query's rejection becomes the request's 503, and the pool discards the client when
  // it is released, so the event itself needs only a listener.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareNamedStatements(client);
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export async function openStore(options: DatabaseOptions | string): Promise<Store> {
  const opts: DatabaseOptions = typeof options === 'string' ? { url: options } : options;
  const { dialect, target } = parseDatabaseUrl(opts.url);
  const db = dialect === 'sqlite' ? openSqlite(target) : openPostgres(target, opts);
  const dataDir = resolve(
    opts.dataDir ?? (dialect === 'sqlite' && target !== ':memory:' ? dirname(resolve(target)) : 'data'),
  );
  try {
    await migrateToLatest(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const memory = target === ':memory:' || target === '';
  const reader = dialect === 'sqlite' && !memory ? openSqliteReader(resolve(target)) : db;
  return {
    db,
    reader,
    dialect,
    dataDir,
    async checkReady() {
      await sql`select 1`.execute(db);
      const pending = await pendingMigrations(db);
      if (pending.length > 0) throw new Error(`migrations not applied: ${pending.join(', ')}`);
    },
    async close() {
      if (reader !== db) await reader.destroy();
      await db.destroy();
    },
  };
}
