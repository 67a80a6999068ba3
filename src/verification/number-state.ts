// A send's first step in its transaction: it takes the destination number (no other send to it runs until the
// commit) and reads, in the same step, what the send's rules need of the number: its next ordinal, the send that
// fills its send window, and the failed check that keeps its guess ceiling reached.
import { sql } from 'kysely';
import { type CeilingInputs, ceilingFailureQuery } from '../limits/guess-ceiling.js';
import type { Db } from '../store/database.js';
import { sortedBy } from '../store/plan-order.js';
import { dialectOf, prepared } from '../store/prepared.js';
import type { Mode } from '../vocabulary/modes.js';

export interface NumberKey {
  workspaceId: string;
  phone: string;
  now: number;
  /** The send's mode: the send limit counts the sends of its mode only. */
  mode: Mode;
  /** The send window's start, and the send limit less one. */
  windowSince: number;
  windowOffset: number;
  /** The number's guess ceiling (guess-ceiling.ts `ceilingInputs`). */
  ceiling: CeilingInputs;
}

export interface NumberState {
  /** The send's ordinal for the number: orders its verifications without relying on clock resolution. */
  seq: number;
  /** When the window is full: the creation time of the send that fills it (the limit-th newest in the window). */
  windowFullAt: number | null;
  /** When the number's guess ceiling is reached: the failure that keeps it so (guess-ceiling.ts). */
  ceilingAt: number | null;
}

type StateInputs = Omit<NumberKey, 'ceiling'> & {
  ceilingSince: number;
  ceilingOffset: number;
};

/**
 * PostgreSQL: a row lock on the number's lock row, held to the end of the transaction, which counts the
 * ordinals. The state is read by the next statement: a statement's snapshot is taken when it starts, so a read in
 * this one would miss the sends committed while it waited for the lock.
 */
const takePhoneLock = prepared((db, p: StateInputs) =>
  db
    .insertInto('phone_locks')
    .values({ workspace_id: p.workspaceId, phone: p.phone, touched_at: p.now, seq: 1 })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'phone'])
        .doUpdateSet({ touched_at: p.now, seq: sql<number>`phone_locks.seq + 1` }),
    )
    .returning('seq'),
);

// The send limit is per mode: a test suite's sends never use up a real number's live sends, nor the reverse.
const windowFillingSend = (db: Db, p: StateInputs) =>
  db
    .selectFrom('verifications')
    .select('created_at')
    .where('workspace_id', '=', p.workspaceId)
    .where('phone', '=', p.phone)
    .where('created_at', '>', p.windowSince)
    .where('mode', '=', p.mode)
    .orderBy(sortedBy(db, 'created_at'), 'desc')
    .limit(1)
    .offset(p.windowOffset);

const ceilingFailure = (db: Db, p: StateInputs) =>
  ceilingFailureQuery(db, {
    workspaceId: p.workspaceId,
    phone: p.phone,
    since: p.ceilingSince,
    offset: p.ceilingOffset,
  });

const pgState = prepared((db, p: StateInputs) =>
  db.selectNoFrom([
    windowFillingSend(db, p).$asScalar().as('window_full_at'),
    ceilingFailure(db, p).$asScalar().as('ceiling_at'),
  ]),
);

/**
 * SQLite: every write of every process already runs under the database's one write lock (the connection's group
 * holds it from BEGIN IMMEDIATE to its commit), so there is nothing to lock, and the whole state is one statement:
 * the ordinal is the number's highest so far plus one (an index look-up, no row written).
 */
const sqliteState = prepared((db, p: StateInputs) =>
  db.selectNoFrom([
    db
      .selectFrom('verifications')
      .select(sql<number>`coalesce(max(seq), 0) + 1`.as('seq'))
      .where('workspace_id', '=', p.workspaceId)
      .where('phone', '=', p.phone)
      .$asScalar()
      .as('seq'),
    windowFillingSend(db, p).$asScalar().as('window_full_at'),
    ceilingFailure(db, p).$asScalar().as('ceiling_at'),
  ]),
);

const orNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/**
 * Serialises sends to one number for the rest of the transaction, taken first, so the send limit's count and the
 * supersede after it see every earlier send. Resolves once the number is taken, with the read of its state as of
 * then, to call next. On PostgreSQL the lock is sent ahead (store/postgres-pipeline.ts): what the caller sends before
 * calling the read (another lock) goes in the same round trip, and the read after all of it.
 */
export async function takeNumber(tx: Db, key: NumberKey): Promise<() => Promise<NumberState>> {
  const { ceiling, ...rest } = key;
  const p: StateInputs = { ...rest, ceilingSince: ceiling.since, ceilingOffset: ceiling.offset };
  if (dialectOf(tx) === 'sqlite') {
    return async () => {
      const [row] = (await sqliteState(tx, p)).rows;
      if (!row) throw new Error('the number state returned no row');
      return {
        seq: Number(row.seq),
        windowFullAt: orNull(row.window_full_at),
        ceilingAt: orNull(row.ceiling_at),
      };
    };
  }
  const locked = await takePhoneLock.ahead(tx, p);
  return async () => {
    // Sent ahead too: the reads of a batch's numbers (send-batch.ts) are written together, then awaited.
    const state = await pgState.ahead(tx, p);
    const [row] = (await state.answer).rows;
    const [lock] = (await locked.answer).rows;
    if (!lock) throw new Error('the phone lock returned no row');
    return {
      seq: Number(lock.seq),
      windowFullAt: orNull(row?.window_full_at),
      ceilingAt: orNull(row?.ceiling_at),
    };
  };
}
