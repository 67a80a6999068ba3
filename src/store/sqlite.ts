// The embedded store: one SQLite file, one connection to it per process. Writes are grouped, a transaction per
// turn of the event loop (sqlite-group-commit.ts), so the connection holds SQLite's write lock across awaits;
// a second connection to the same file in the same process would wait for that lock synchronously, blocking
// the very event loop that would release it. So every store a process opens on one file shares its connection
// (counted; the last to close closes it), and the file is migrated once, by the first.
import { basename, dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteDialect, sql } from 'kysely';
import { createPrivateFile, makePrivateDir, makePrivateFile } from '../private-files.js';
import { SECRET_FILE } from '../secret.js';
import { migrateToLatest } from './migrate.js';
import { IMMEDIATE, type ImmediateRunner } from './prepared.js';
import { openSqliteReader, type SqliteReader } from './read-worker.js';
import { GroupCommitSqliteDriver } from './sqlite-group-commit.js';
import { cacheSqliteStatements } from './statement-cache.js';
import type { Database } from './tables.js';
import { enterWalMode } from './wal-mode.js';

/**
 * Kysely takes no migration lock on SQLite (it assumes one process). Several processes may start on one file,
 * so the migration run holds SQLite's write lock (BEGIN IMMEDIATE): the others wait (busy_timeout), then
 * find nothing pending.
 */
class MigrationLockingSqliteAdapter extends SqliteAdapter {
  /** Compiled-once statements run at once through the driver (store/prepared.ts). */
  readonly [IMMEDIATE]: ImmediateRunner;

  constructor(runner: ImmediateRunner) {
    super();
    this[IMMEDIATE] = runner;
  }

  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin immediate`.execute(db);
  }
  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`commit`.execute(db);
  }
}

class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(private readonly driver: GroupCommitSqliteDriver) {
    super({ database: {} as never });
  }
  override createDriver(): GroupCommitSqliteDriver {
    return this.driver;
  }
  override createAdapter(): SqliteAdapter {
    return new MigrationLockingSqliteAdapter(this.driver);
  }
}

export interface SqliteFile {
  readonly db: Kysely<Database>;
  /** Heavy reads on a thread of their own (the file's own connection for an in-memory database). */
  readonly reader: Kysely<Database>;
  committed(): Promise<void> | undefined;
  /**
   * A serving process: checkpoints from the reader thread from now on (a no-op in memory), and the connection's
   * temporary files in memory (below, `serveTemporariesFromMemory`).
   */
  startServing(): void;
  /** This user is done with the file; the last one closes it. */
  release(): Promise<void>;
  /** What could not be made private at open (files or a directory the process does not own), for the log. */
  readonly warnings: readonly string[];
  /** Each statement's duration in seconds goes to `observe` from now on (the serving process's metrics). */
  observeQueries(observe: (seconds: number) => void): void;
}

interface Shared {
  ready: Promise<void>;
  db: Kysely<Database>;
  /** The reader thread; none for an in-memory database, which reads on its own connection. */
  readerThread: SqliteReader | undefined;
  connection: SQLite.Database;
  driver: GroupCommitSqliteDriver;
  users: number;
  warnings: string[];
}

const openFiles = new Map<string, Shared>();

/** Pages of write-ahead log (4 KiB each) at which a connection checkpoints on its own thread. */
const WAL_AUTOCHECKPOINT_PAGES = 40_000;
/** What the log's file is truncated back to after a checkpoint: a little above the pages above. */
const WAL_SIZE_LIMIT_BYTES = 170 * 1024 * 1024;

/** How often a serving process copies the log back into the database, off its serving thread. */
const BACKGROUND_CHECKPOINT_MS = 250;

/** The files SQLite keeps beside the database: made owner-only before it writes them. */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * The folder owner-only, the file created 0600 before SQLite opens it: SQLite gives the -wal, -shm and -journal
 * files it creates later the database file's own mode, so they are 0600 too, whatever the umask. Those left by
 * an earlier, laxer install are tightened here.
 */
function makeFilesPrivate(path: string, warnings: string[]): void {
  const base = basename(path);
  makePrivateDir(dirname(path), [base, ...COMPANIONS.map((s) => base + s), SECRET_FILE], warnings);
  createPrivateFile(path, warnings);
  for (const suffix of COMPANIONS) makePrivateFile(path + suffix, warnings);
}

function connect(path: string, memory: boolean, warnings: string[]): SQLite.Database {
  if (!memory) makeFilesPrivate(path, warnings);
  const sqlite = new SQLite(memory ? ':memory:' : path);
  enterWalMode(sqlite);
  sqlite.pragma('synchronous = NORMAL');
  // The CLI and the server share the file: wait for the other's write instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // This connection's own checkpoint, at ~160 MB of WAL. It runs on the calling thread: in a serving process it
  // copies what the reader thread has not copied yet (its last 250 ms at most), syncs, and lets the log start again
  // from its beginning, a stall of the serving thread. At ~40 MB that came every quarter of a second under load;
  // at ~160 MB it comes about once a second, the stalls summing to about half as much (docs/benchmarks.md). The file
  // is truncated back to a little above that size after a checkpoint, so it does not stay larger.
  sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  return sqlite;
}

/**
 * A serving process keeps the connection's temporary files in memory. Each request's transaction is a savepoint
 * inside its group's (sqlite-group-commit.ts), so SQLite keeps the original of every page the request changes in a
 * sub-journal: in memory up to 64 KiB, then a temporary file. A send changes more than that, so every group wrote
 * its pages to a file as well as to the log: with the sub-journal in memory, a send's time in SQLite fell from 254
 * to 204 µs (docs/benchmarks.md). A serving process runs no large transaction (deleting a workspace, whose
 * statement journal could hold the whole of it, is the CLI's, whose connection keeps SQLite's default); its large
 * reads (the dashboard's) run on the reader thread's own connection, which keeps the default too.
 */
function serveTemporariesFromMemory(connection: SQLite.Database): void {
  connection.pragma('temp_store = MEMORY');
}

function open(path: string, memory: boolean): Shared {
  const warnings: string[] = [];
  const connection = connect(path, memory, warnings);
  const driver = new GroupCommitSqliteDriver(cacheSqliteStatements(connection));
  const db = new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(driver) });
  const committed = () => driver.committed();
  const shared: Shared = {
    db,
    driver,
    readerThread: memory ? undefined : openSqliteReader(path, committed),
    connection,
    users: 0,
    warnings,
    ready: migrateToLatest(db).then(() => driver.startGrouping()),
  };
  return shared;
}

/** The file at `target` (or a private in-memory database), migrated, for one more user. */
export async function attachSqlite(target: string): Promise<SqliteFile> {
  const memory = target === ':memory:' || target === '';
  const path = memory ? '' : resolve(target);
  let shared = memory ? undefined : openFiles.get(path);
  if (!shared) {
    shared = open(path, memory);
    if (!memory) openFiles.set(path, shared);
  }
  shared.users++;
  const file = shared;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    try {
      // What this user wrote is committed before it goes (the CLI prints only what is durable).
      file.driver.flush();
    } finally {
      if (--file.users === 0) {
        if (openFiles.get(path) === file) openFiles.delete(path);
        await file.readerThread?.destroy();
        await file.db.destroy();
      }
    }
  };
  try {
    await file.ready;
  } catch (err) {
    await release();
    throw err;
  }
  return {
    db: file.db,
    reader: file.readerThread?.db ?? file.db,
    committed: () => file.driver.committed(),
    startServing: () => {
      file.readerThread?.checkpointEvery(BACKGROUND_CHECKPOINT_MS);
      serveTemporariesFromMemory(file.connection);
    },
    release,
    warnings: file.warnings,
    observeQueries: (observe) => file.driver.observeQueries(observe),
  };
}
