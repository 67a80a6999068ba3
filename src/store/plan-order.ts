// PostgreSQL plans a prepared statement per connection, and after five runs may keep one generic plan for the
// connection's life, made from the statistics it had then: none on a table not yet analysed (a new database, or one
// whose server runs without autovacuum). For "the n-th newest row of one number within a window" (`where workspace =
// $1 and phone = $2 and at > $3 order by at desc limit 1 offset $4`) two kinds of index give that order: the number's
// own (workspace, phone, at), and one by time (at, or workspace and at), whose backward scan stops at the limit and so
// looks as cheap on an empty table. On a full one it reads every row of the window, every number's: measured at 1,000
// to 2,200 buffer reads a send, growing with the send rate (docs/benchmarks.md). Ordered by `at + 0`, which no index
// gives, the choice rests on the WHERE clause alone, where the number's index matches every condition: the number's
// few rows are read, then sorted. SQLite plans by its own rules and keeps the index's order: its text is unchanged.
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from './database.js';
import { dialectOf } from './prepared.js';

/** The ORDER BY term of `column`, to sort on it without letting PostgreSQL pick an index for its order (above). */
export function sortedBy(db: Db, column: string): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`${sql.ref(column)} + 0` : sql.ref(column);
}

/**
 * "Still pending", for a statement that finds its verification by id. Written `status || ''` so that no plan can
 * take the partial index of pending codes for it: `status = 'pending'` matches that index's predicate, as a
 * constant and, in the custom plans PostgreSQL makes for a prepared statement's first runs, as a parameter too.
 * Where the statistics date from before the pending codes came (a million finished rows imported: autovacuum
 * analyses again only after 100,000 changes), the index looks empty, so the planner scans it for the id instead of
 * reading the primary key: every pending code, 16,500 rows and 12 ms a check in the long run (docs/benchmarks.md),
 * and since a custom plan then looks cheaper than the generic one, it stays so. The same text serves raw SQL.
 */
export const STILL_PENDING_SQL = "status || '' = 'pending'";
export const stillPending: RawBuilder<SqlBool> = sql.raw<SqlBool>(STILL_PENDING_SQL);
