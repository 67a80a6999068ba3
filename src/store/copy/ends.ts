// What a copy needs of each end, whatever the dialect: the source is read in one snapshot, in batches; the
// target takes the rows in one transaction.
import type { TableShape } from './schema.js';

/** One row's values, in the order of its table's columns. */
export type Row = unknown[];

export interface SourceEnd {
  /** Which database this is (its file, or its server and database): a copy onto itself is refused. */
  readonly identity: string;
  /** The names of the migrations applied to it, read in the snapshot. */
  migrations(): Promise<string[]>;
  tables(): Promise<TableShape[]>;
  /** The table's rows, at most `size` at a time: a large table is never held whole. */
  batches(table: TableShape, size: number): AsyncIterable<Row[]>;
  close(): Promise<void>;
}

export interface TargetEnd {
  /** As the source's; `undefined` when the database does not exist yet (a new SQLite file). */
  readonly identity: string | undefined;
  /** Applies this build's migrations (created first where it is a new file); the names applied after. */
  migrate(): Promise<string[]>;
  tables(): Promise<TableShape[]>;
  count(table: TableShape): Promise<number>;
  /**
   * Opens the copy's transaction holding every table against other writers (PostgreSQL: ACCESS EXCLUSIVE locks;
   * SQLite: the write lock), so what it then counts stays true until the commit: two copies into one empty
   * target cannot both find it empty.
   */
  begin(tables: readonly TableShape[]): Promise<void>;
  /** Removes every row of these tables (children first), inside the transaction. */
  clear(tables: readonly TableShape[]): Promise<void>;
  insert(table: TableShape, rows: readonly Row[]): Promise<void>;
  /** After the rows, before the commit: sequences moved past the copied values (PostgreSQL). */
  finish(tables: readonly TableShape[]): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}
