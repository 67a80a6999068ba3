// A batch of rows for one statement to change (a claim, an expiry, a retention delete): chosen once, as a
// materialized CTE named `batch`, then changed by key (`… where id in (select id from batch)`). On PostgreSQL the
// batch's rows are locked with SKIP LOCKED, so several processes take disjoint batches.
//
// Not `where id in (select … limit n for update skip locked)`: PostgreSQL may plan that as a nested-loop
// semi-join that runs the subquery again for each row it looks at, and each run skips the rows the statement has
// changed so far (they are locked by the statement itself), so the next run picks the next n: the statement
// changes every row that qualifies, not n. Measured on the sweeper's expiry: 12 rows where the batch was 5.
import type { Kysely, QueryCreator, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './prepared.js';
import type { Database } from './tables.js';

export function withLockedBatch<O>(
  db: Kysely<Database>,
  // biome-ignore lint/suspicious/noExplicitAny: any table of the database, any selection
  batch: SelectQueryBuilder<Database, any, O>,
): QueryCreator<Database & { batch: O }> {
  const locked = dialectOf(db) === 'postgres' ? batch.forUpdate().skipLocked() : batch;
  // The CTE's row type is O: Kysely cannot infer it through a generic selection, so it is given.
  return db.with(
    (cte) => cte('batch').materialized(),
    () => locked as unknown as SelectQueryBuilder<Database, never, Record<string, unknown>>,
  ) as unknown as QueryCreator<Database & { batch: O }>;
}
