// The database client: SQLite (embedded default) or PostgreSQL, chosen by DATABASE_URL, migrated at open.
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { type DatabaseOptions, DEFAULT_DATABASE_POOL_MAX, DEFAULT_STATEMENT_TIMEOUT_MS } from '../config.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { PipelinedPostgresDialect } from './postgres-pipeline.js';
import { attachSqlite } from './sqlite.js';
import { prepareNamedStatements, type QueryTiming } from './statement-cache.js';
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
  /**
   * The commit of the writes made so far, where they are not yet durable (SQLite's group commit); undefined when
   * nothing waits to commit. Nothing may leave the process (an answer, a hand-over) before it resolves.
   */
  committed(): Promise<void> | undefined;
  /**
   * A serving process: keep the database's housekeeping off the serving thread (SQLite's checkpoints move to the
   * reader thread) and its requests' sub-journals off the disk (SQLite's temporary files in memory). A no-op on
   * PostgreSQL.
   */
  serveInBackground(): void;
  /** Where local state (the generated secret) is kept. */
  readonly dataDir: string;
  /** Files or folders of the store that could not be made owner-only (not the process's own): for the log. */
  readonly warnings: readonly string[];
  /** Each statement's duration in seconds goes to `observe` from now on (the serving process's metrics). */
  observeQueries(observe: (seconds: number) => void): void;
  /** The PostgreSQL pool's connections now; undefined on SQLite (one connection). */
  readonly poolStats: (() => { total: number; idle: number; waiting: number }) | undefined;
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
 * The store as a log line names it, with nothing secret: `sqlite /abs/path.db`, or `postgres host:port/database`
 * (never the user or the password the URL may hold).
 */
export function describeDatabase(url: string): string {
  const { dialect, target } = parseDatabaseUrl(url);
  if (dialect === 'sqlite') return `sqlite ${target === ':memory:' ? target : resolve(target)}`;
  try {
    const parsed = new URL(target);
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)';
    return `postgres ${parsed.host || '(default host)'}/${database}`;
  } catch {
    return 'postgres (an unparsable URL)';
  }
}

// PostgreSQL bigint (epoch milliseconds) arrives as a string by default; every value here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** The statement and lock-wait timeout of the serving connections (DATABASE_STATEMENT_TIMEOUT_MS). */
const statementTimeout = (options: DatabaseOptions): number =>
  options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;

function openPostgres(
  url: string,
  options: DatabaseOptions,
): { db: Kysely<Database>; pool: pg.Pool; timing: QueryTiming } {
  const timing: QueryTiming = { observe: undefined };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? DEFAULT_DATABASE_POOL_MAX,
    // Fail fast when the database is unreachable: the request gets a 503, never a hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeout(options),
    // A lock wait is bounded too: contention degrades into a 503, not a pile-up.
    lock_timeout: statementTimeout(options),
    query_timeout: statementTimeout(options) + 2000,
    application_name: 'phone-verify',
    // Statements are written without waiting for the answers before them (postgres-pipeline.ts).
    pipeline: true,
  } as pg.PoolConfig);
  // A connection the server drops (restart, failover, pg_terminate_backend) must not crash the process. Idle,
  // the pool reports it here and discards it. Checked out by a request, the client emits 'error' while its
  // query rejects: the query's rejection becomes the request's 503, and the pool discards the client when
  // it is released, so the event itself needs only a listener.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareNamedStatements(client, timing);
  });
  return { db: new Kysely<Database>({ dialect: new PipelinedPostgresDialect(pool) }), pool, timing };
}

/**
 * Migrations run on a connection of their own, without the statement timeout: creating a table on a loaded
 * database, or an index over a large one, takes as long as it takes, and a start must not fail for it. A process
 * that starts while another migrates waits for it (the migrator's lock, for up to an hour). Their waits for a
 * table's lock stay bounded as a request's are, so a migration never holds requests queued behind it for longer
 * than a request would wait.
 */
async function migratePostgres(url: string, options: DatabaseOptions): Promise<void> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: 3000,
    statement_timeout: 0,
    lock_timeout: statementTimeout(options),
    application_name: 'phone-verify migrate',
  } as pg.PoolConfig);
  pool.on('error', () => {});
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

export async function openStore(options: DatabaseOptions | string): Promise<Store> {
  const opts: DatabaseOptions = typeof options === 'string' ? { url: options } : options;
  const { dialect, target } = parseDatabaseUrl(opts.url);
  const dataDir = resolve(
    opts.dataDir ?? (dialect === 'sqlite' && target !== ':memory:' ? dirname(resolve(target)) : 'data'),
  );
  let opened: {
    db: Kysely<Database>;
    reader: Kysely<Database>;
    committed(): Promise<void> | undefined;
    startServing(): void;
    warnings: readonly string[];
    observeQueries(observe: (seconds: number) => void): void;
    poolStats?: () => { total: number; idle: number; waiting: number };
  };
  let close: () => Promise<void>;
  if (dialect === 'sqlite') {
    const file = await attachSqlite(target);
    opened = file;
    close = file.release;
  } else {
    await migratePostgres(target, opts);
    const { db, pool, timing } = openPostgres(target, opts);
    opened = {
      db,
      reader: db,
      committed: () => undefined,
      startServing: () => {},
      warnings: [],
      observeQueries: (observe) => {
        timing.observe = observe;
      },
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
    close = () => db.destroy();
  }
  const { db, reader } = opened;
  return {
    db,
    reader,
    dialect,
    dataDir,
    warnings: opened.warnings,
    committed: () => opened.committed(),
    serveInBackground: () => opened.startServing(),
    observeQueries: (observe) => opened.observeQueries(observe),
    poolStats: opened.poolStats,
    async checkReady() {
      await sql`select 1`.execute(db);
      const pending = await pendingMigrations(db);
      if (pending.length > 0) throw new Error(`migrations not applied: ${pending.join(', ')}`);
    },
    close,
  };
}
