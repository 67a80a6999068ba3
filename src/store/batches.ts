// Background deletions (retention, the pumping guard's pruning) go in batches: each a statement or a short
// transaction of DELETE_BATCH rows at most, after a turn of the event loop, so the requests that arrived meanwhile
// run first (on SQLite every statement runs on the serving thread). A batch is picked once, and on PostgreSQL
// locked with SKIP LOCKED, so several processes share the work (locked-batch.ts).
import { type DeleteResult, type SelectQueryBuilder, sql } from 'kysely';
import { nextTurn } from '../next-turn.js';
import type { Db } from './database.js';
import { withLockedBatch } from './locked-batch.js';
import type { Database } from './tables.js';

export const DELETE_BATCH = 500;
/**
 * Batches one step runs at most per call (an hour apart for retention): a million rows an hour, far above what a
 * SQLite installation sends. Before the turns between batches this was 20, because 20 batches were one block of
 * the serving thread (176 ms for 10,000 verifications), and retention fell behind any installation creating more
 * than 10,000 verifications an hour.
 */
const MAX_BATCHES = 2000;

/** Runs `batch` (how many rows it deleted) until one comes back short of DELETE_BATCH; the rows deleted. */
export async function inBatches(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    await nextTurn();
    const n = await batch();
    total += n;
    if (n < DELETE_BATCH) break;
  }
  return total;
}

/** The rows a delete statement deleted. */
const deletedRows = async (query: { executeTakeFirst(): Promise<DeleteResult> }): Promise<number> =>
  Number((await query.executeTakeFirst()).numDeletedRows);

/**
 * Deletes the rows of `table` that `where` picks, in batches of DELETE_BATCH (inBatches): each batch picked once by
 * its `key` columns and, on PostgreSQL, locked with SKIP LOCKED (locked-batch.ts). The rows deleted.
 */
export function deleteInBatches<T extends keyof Database & string>(
  db: Db,
  table: T,
  key: readonly (keyof Database[T] & string)[],
  // biome-ignore lint/suspicious/noExplicitAny: the table's selection, narrowed by its conditions
  where: (rows: SelectQueryBuilder<Database, T, any>) => SelectQueryBuilder<Database, T, any>,
): Promise<number> {
  const columns = sql.join(key.map((column) => sql.ref(column)));
  // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot narrow a generic table name to its columns
  const rows = (db.selectFrom(table) as any).select(key) as SelectQueryBuilder<Database, T, any>;
  return inBatches(() =>
    deletedRows(
      withLockedBatch(db, where(rows).limit(DELETE_BATCH))
        .deleteFrom(table as 'verifications')
        .where(sql<boolean>`(${columns}) in (select ${columns} from batch)`),
    ),
  );
}
