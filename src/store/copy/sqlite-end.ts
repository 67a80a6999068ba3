// A SQLite file as either end of a copy, on its own connection (never the serving one): the source is read in
// one read transaction, a consistent snapshot that a server writing to the file at the same time does not
// disturb (WAL); the target is written in one transaction, so a failed copy leaves it without a row.
import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteDialect, sql } from 'kysely';
import { AppError } from '../../errors.js';
import { createPrivateFile, makePrivateDir } from '../../private-files.js';
import { migrateToLatest } from '../migrate.js';
import { enterWalMode } from '../wal-mode.js';
import type { Row, SourceEnd, TargetEnd } from './ends.js';
import { MIGRATOR_TABLES, quoteName, type TableShape } from './schema.js';

/** Kysely takes no migration lock on SQLite: two copies migrating one new file at once hold the write lock in turn. */
class LockingAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin immediate`.execute(db);
  }
  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`commit`.execute(db);
  }
}

class LockingDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new LockingAdapter();
  }
}

function fileIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `sqlite:${stat.dev}:${stat.ino}`;
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes(String((err as NodeJS.ErrnoException).code))) return undefined;
    throw err;
  }
}

function readTables(db: SQLite.Database): TableShape[] {
  const names = db
    .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'`)
    .pluck()
    .all() as string[];
  return names
    .filter((name) => !MIGRATOR_TABLES.includes(name))
    .map((name) => ({
      name,
      columns: db.prepare('select name from pragma_table_info(?) order by cid').pluck().all(name) as string[],
      references: db.prepare('select "table" from pragma_foreign_key_list(?)').pluck().all(name) as string[],
    }));
}

function readMigrations(db: SQLite.Database, shown: string): string[] {
  const table = db
    .prepare(`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`)
    .get();
  if (!table) throw new AppError('conflict', `${shown} is not a phone-verify database: it has no migrations`);
  return db.prepare('select name from kysely_migration order by name').pluck().all() as string[];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Opening failed: the reason in one line, naming the path (never a stack). */
function openError(field: string, path: string, err: unknown): AppError {
  const code = (err as NodeJS.ErrnoException).code;
  const reason =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ENOENT'
        ? 'its directory does not exist'
        : err instanceof Error
          ? err.message
          : String(err);
  return new AppError('invalid_request', `--${field}: cannot open ${path}: ${reason}`);
}

export function openSqliteSource(path: string, shown: string): SourceEnd {
  if (isDirectory(path)) throw new AppError('invalid_request', `--from: ${path} is a directory`);
  const identity = fileIdentity(path);
  if (identity === undefined) throw new AppError('invalid_request', `--from: no database at ${path}`);
  let db: SQLite.Database;
  try {
    // Read-only: the copy never writes to its source.
    db = new SQLite(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    // One read transaction from the first read to the close: every table as of the same instant.
    db.exec('begin');
    readMigrations(db, shown);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw openError('from', path, err);
  }
  return {
    identity,
    migrations: async () => readMigrations(db, shown),
    tables: async () => readTables(db),
    async *batches(table, size) {
      const columns = table.columns.map(quoteName).join(', ');
      // Integers as bigints: a value past 2^53 is kept exactly.
      const rows = db
        .prepare(`select ${columns} from ${quoteName(table.name)}`)
        .raw(true)
        .safeIntegers(true);
      let batch: Row[] = [];
      for (const row of rows.iterate() as IterableIterator<Row>) {
        batch.push(row);
        if (batch.length === size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
    close: async () => {
      if (db.inTransaction) db.exec('commit');
      db.close();
    },
  };
}

/** SQLite binds no booleans (PostgreSQL's boolean columns): they are stored as 1 and 0, as SQLite keeps them. */
const bindable = (value: unknown) => (typeof value === 'boolean' ? Number(value) : value);

export function openSqliteTarget(path: string): TargetEnd {
  if (isDirectory(path)) throw new AppError('invalid_request', `--to: ${path} is a directory`);
  const identity = fileIdentity(path);
  let db: SQLite.Database | undefined;
  const inserts = new Map<string, SQLite.Statement>();
  const open = (): SQLite.Database => {
    if (!db) throw new Error('the target is not migrated yet');
    return db;
  };
  return {
    identity,
    async migrate() {
      try {
        // Owner-only like the server's own file: it will hold the same data.
        const warnings: string[] = [];
        makePrivateDir(
          dirname(path),
          [basename(path), `${basename(path)}-wal`, `${basename(path)}-shm`],
          warnings,
        );
        createPrivateFile(path, warnings);
        db = new SQLite(path);
        enterWalMode(db);
        db.pragma('busy_timeout = 5000');
        db.pragma('foreign_keys = ON');
      } catch (err) {
        throw openError('to', path, err);
      }
      // The migrator on this connection; it is closed with the target, not by Kysely.
      const migrator = new Kysely<unknown>({ dialect: new LockingDialect({ database: db }) });
      await migrateToLatest(migrator);
      return readMigrations(db, path);
    },
    tables: async () => readTables(open()),
    count: async (table) =>
      Number(
        open()
          .prepare(`select count(*) from ${quoteName(table.name)}`)
          .pluck()
          .get(),
      ),
    async begin() {
      // The write lock for the whole copy; foreign keys checked at the commit, whatever the order.
      open().exec('begin immediate');
      open().pragma('defer_foreign_keys = ON');
    },
    async clear(tables) {
      for (const table of [...tables].reverse()) open().exec(`delete from ${quoteName(table.name)}`);
    },
    async insert(table, rows) {
      let statement = inserts.get(table.name);
      if (!statement) {
        const columns = table.columns.map(quoteName).join(', ');
        const marks = table.columns.map(() => '?').join(', ');
        statement = open().prepare(`insert into ${quoteName(table.name)} (${columns}) values (${marks})`);
        inserts.set(table.name, statement);
      }
      for (const row of rows) statement.run(row.map(bindable));
    },
    finish: async () => {},
    commit: async () => {
      open().exec('commit');
    },
    rollback: async () => {
      if (db?.inTransaction) db.exec('rollback');
    },
    close: async () => {
      db?.close();
    },
  };
}

/** What this build's migrations make: their names, and the rows they put in each table (seeds, not data). */
export async function migratedSchema(): Promise<{ migrations: string[]; seeded: Map<string, number> }> {
  const db = new SQLite(':memory:');
  try {
    await migrateToLatest(new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) }));
    const seeded = new Map<string, number>();
    for (const table of readTables(db))
      seeded.set(
        table.name,
        Number(
          db
            .prepare(`select count(*) from ${quoteName(table.name)}`)
            .pluck()
            .get(),
        ),
      );
    return { migrations: readMigrations(db, 'this build'), seeded };
  } finally {
    db.close();
  }
}
