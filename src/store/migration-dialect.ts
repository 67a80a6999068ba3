// Where a migration differs by store: SQLite's and PostgreSQL's own ways to the same schema.
import { type CreateTableBuilder, type Kysely, SqliteAdapter, sql } from 'kysely';

export const isSqlite = (db: Kysely<unknown>): boolean => db.getExecutor().adapter instanceof SqliteAdapter;

/**
 * SQLite changes a table's key (or its kind, WITHOUT ROWID) only by building it again: `define` makes the new
 * table's columns and key, its rows are copied over by `columns`, and the old table (with its indexes) goes. The
 * caller creates the indexes again. Runs in the migration's transaction, so a failure leaves the old table.
 */
export async function rebuildSqliteTable(
  db: Kysely<unknown>,
  table: string,
  columns: readonly string[],
  define: (builder: CreateTableBuilder<string, never>) => CreateTableBuilder<string, never>,
): Promise<void> {
  const rebuilt = `${table}_rebuilt`;
  const list = sql.join(columns.map((c) => sql.ref(c)));
  await define(db.schema.createTable(rebuilt)).execute();
  await sql`insert into ${sql.table(rebuilt)} (${list}) select ${list} from ${sql.table(table)}`.execute(db);
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(rebuilt).renameTo(table).execute();
}
