// How far each background read-model has got (the overview's roll-ups, the log's phone directory): it holds every
// verification created before its watermark, and readers take the raw rows from the watermark on. Several
// processes may sweep one database: a step reads the watermark and what it needs, then writes its slice and moves
// the watermark in one transaction, only if nobody moved it meanwhile (compare and set), so every slice is
// written exactly once, by whoever gets there first, and a reader never sees a slice without its watermark.
import type { Db } from './database.js';
import type { WatermarksTable } from './tables.js';

export type WatermarkName = 'verification_rollups' | 'phone_directory';

/**
 * How long after its created_at a verification's row is surely visible: a send's transaction commits within
 * seconds (its statements time out), and the clocks of several servers disagree by less. A read-model may take
 * in the rows created before `now - SETTLE_MS` and know that no other row of that time will still appear.
 */
export const SETTLE_MS = 5 * 60_000;

/**
 * The creation time before which every verification is final and visible, as of `now`: its status (and what a read
 * model counts of it) can no longer change. A verification's status changes only while it is pending (every update
 * of a status is guarded by `status = 'pending'`), and a pending code lives at most `maxCodeLifetimeMs`, so the
 * soonest expiry among pending codes bounds the oldest creation time that may still change, even where the expiry
 * was not recorded yet; and a row created in the last SETTLE_MS may not be visible yet.
 */
export async function finalBefore(db: Db, now: number, maxCodeLifetimeMs: number): Promise<number> {
  const pending = await db
    .selectFrom('verifications')
    .select((eb) => eb.fn.min('expires_at').as('soonest'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const settled = now - SETTLE_MS;
  return pending?.soonest == null ? settled : Math.min(settled, Number(pending.soonest) - maxCodeLifetimeMs);
}

/** Every verification created before the returned epoch ms is in the read-model (0: none yet). */
export async function readWatermark(db: Db, name: WatermarkName): Promise<number> {
  const row = await db
    .selectFrom('watermarks')
    .select('done_before')
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(row?.done_before ?? 0);
}

/**
 * Moves the watermark from `from` to `to` and runs `write` in the same transaction, if the watermark is still at
 * `from`. False (and nothing written) when another process moved it first.
 */
export function advanceWatermark(
  db: Db,
  name: WatermarkName,
  from: number,
  to: number,
  write: (tx: Db) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    // The row lock (PostgreSQL) or the write lock (SQLite) orders racing steps; the loser finds it moved.
    const moved = await tx
      .updateTable('watermarks')
      .set({ done_before: to } satisfies Partial<WatermarksTable>)
      .where('name', '=', name)
      .where('done_before', '=', from)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    await write(tx);
    return true;
  });
}

/** The creation time of the oldest verification created at or after `from`; undefined when there is none. */
export async function firstCreatedFrom(db: Db, from: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('verifications')
    .select((eb) => eb.fn.min('created_at').as('first'))
    .where('created_at', '>=', from)
    .executeTakeFirst();
  return row?.first == null ? undefined : Number(row.first);
}

/**
 * `rows` cut into chunks whose sizes are powers of two up to `max` (a power of two): a multi-row insert's text depends on its row
 * count, and every distinct text is a statement prepared on each connection, so only a few sizes ever occur.
 */
export function chunksForInsert<T>(rows: readonly T[], max = 256): T[][] {
  const chunks: T[][] = [];
  let at = 0;
  while (at < rows.length) {
    let size = max;
    while (size > rows.length - at) size /= 2;
    chunks.push(rows.slice(at, at + size));
    at += size;
  }
  return chunks;
}
