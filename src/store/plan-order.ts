// PostgreSQL plans a prepared statement per connection, and after five runs may keep one generic plan for the
// connection's life, made from the statistics it had then: none on a table not yet analysed (a new database, or one
// whose server runs without autovacuum). For "the n-th newest row of one number within a window" (`where workspace =
// $1 and phone = $2 and at > $3 order by at desc limit 1 offset $4`) two kinds of index give that order: the number's
// own (workspace, phone, at), and one by time (at, or workspace and at), whose backward scan stops at the limit and so
// looks as cheap on an empty table. On a full one it reads every row of the window, every number's: measured at 1,000
// to 2,200 buffer reads a send, growing with the send rate (docs/benchmarks.md). Ordered by `at + 0`, which no index
// gives, the choice rests on the WHERE clause alone, where the number's index matches every condition: the number's
// few rows are read, then sorted. SQLite plans by its own rules and keeps the index's order: its text is unchanged.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './database.js';
import { dialectOf } from './prepared.js';

/** The ORDER BY term of `column`, to sort on it without letting PostgreSQL pick an index for its order (above). */
export function sortedBy(db: Db, column: string): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`${sql.ref(column)} + 0` : sql.ref(column);
}
