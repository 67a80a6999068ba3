// SQL for delivery jobs (one per verification still to be handed over). A job is worked only by the holder of
// its lease: claiming is one statement, and every later write names the lease token, so two processes never
// work the same job at once and a process whose lease ran out writes nothing over its successor's.
import { type ExpressionBuilder, sql } from 'kysely';
import { nextTurn } from '../next-turn.js';
import type { Db, Store } from '../store/database.js';
import { withLockedBatch } from '../store/locked-batch.js';
import { prepared, preparedInsert } from '../store/prepared.js';
import type { Database, DeliveryJobsTable } from '../store/tables.js';

export type DeliveryJobRow = DeliveryJobsTable;

export const insertJob = preparedInsert('delivery_jobs');

export function findJob(db: Db, verificationId: string): Promise<DeliveryJobRow | undefined> {
  return db
    .selectFrom('delivery_jobs')
    .selectAll()
    .where('verification_id', '=', verificationId)
    .executeTakeFirst();
}

/** Every job's sealed code, by verification id (`secret reseal`; jobs live only until their hand-over). */
export async function listSealedCodes(db: Db): Promise<{ owner: string; sealed: string }[]> {
  return db
    .selectFrom('delivery_jobs')
    .select(['verification_id as owner', 'sealed_code as sealed'])
    .orderBy('verification_id')
    .execute();
}

/** Swaps a job's sealed code if it is still `from`; false when the job is gone or was changed meanwhile. */
export async function replaceSealedCode(
  db: Db,
  verificationId: string,
  from: string,
  to: string,
): Promise<boolean> {
  const result = await db
    .updateTable('delivery_jobs')
    .set({ sealed_code: to })
    .where('verification_id', '=', verificationId)
    .where('sealed_code', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether any job is due and free: a read, so an idle poll takes no write lock. */
export async function anyDue(db: Db, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('delivery_jobs')
    .select('verification_id')
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims up to `limit` due jobs that nobody holds, for `leaseMs`. On PostgreSQL the candidates are locked with
 * SKIP LOCKED, so dispatchers of several processes take disjoint sets; SQLite's single writer makes the statement
 * atomic on its own. The outer conditions are checked again on the locked rows. The batch is chosen once
 * (store/locked-batch.ts): never more than `limit` jobs, whatever plan PostgreSQL makes.
 */
export function claimDueJobs(
  store: Store,
  input: { now: number; leaseMs: number; token: string; limit: number },
): Promise<DeliveryJobRow[]> {
  const { now, leaseMs, token, limit } = input;
  const due = store.db
    .selectFrom('delivery_jobs')
    .select('verification_id')
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit);
  return withLockedBatch(store.db, due)
    .updateTable('delivery_jobs')
    .set({ lease_until: now + leaseMs, lease_token: token })
    .where('verification_id', 'in', (eb) => eb.selectFrom('batch').select('verification_id'))
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<=', now)
    .returningAll()
    .execute();
}

/** Deletes a settled job, if the caller still holds it (or nobody does). True if it was there to delete. */
export async function deleteJob(db: Db, verificationId: string, token: string): Promise<boolean> {
  const { numAffectedRows } = await deleteHeld(db, { verificationId, token });
  return Number(numAffectedRows ?? 0) > 0;
}

const deleteHeld = prepared((db, p: { verificationId: string; token: string }) =>
  db
    .deleteFrom('delivery_jobs')
    .where('verification_id', '=', p.verificationId)
    .where((eb) => eb.or([eb('lease_token', '=', p.token), eb('lease_token', 'is', null)])),
);

/** After a transient failure: counts it, frees the lease and sets the next attempt. False if the lease was lost. */
export async function rescheduleJob(
  db: Db,
  verificationId: string,
  token: string,
  next: { attempts: number; nextAttemptAt: number; lastError: string },
): Promise<boolean> {
  const result = await db
    .updateTable('delivery_jobs')
    .set({
      attempts: next.attempts,
      next_attempt_at: next.nextAttemptAt,
      last_error: next.lastError,
      lease_until: 0,
      lease_token: null,
    })
    .where('verification_id', '=', verificationId)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Jobs the sweeper deletes in one statement at most (a few ms of the serving connection). */
export const UNWANTED_BATCH = 200;
/** Unwanted jobs one sweep looks for at most; the rest go at the next sweep. */
const UNWANTED_PER_SWEEP = 20_000;

const notPending = (eb: ExpressionBuilder<Database, 'delivery_jobs'>) =>
  eb.exists(
    eb
      .selectFrom('verifications')
      .select(sql<number>`1`.as('one'))
      .whereRef('verifications.id', '=', 'delivery_jobs.verification_id')
      .where('verifications.status', '!=', 'pending'),
  );

/**
 * Deletes the jobs of verifications that no longer take a code (verified, canceled, superseded, expired, failed,
 * undelivered), whoever holds them: their codes need no hand-over, so their sealed copies go at once. Which ones
 * is read through `reader`: the read looks at every job, and a carrier's outage queues many (on SQLite, 20,000
 * waiting jobs took 17 ms of the serving thread every sweep). They are deleted through `db` in batches, each
 * after a turn of the event loop; a code never takes one again, so what the read found is still unwanted.
 */
export async function deleteUnwantedJobs(db: Db, reader: Db): Promise<number> {
  const unwanted = await reader
    .selectFrom('delivery_jobs')
    .select('verification_id')
    .where(notPending)
    .limit(UNWANTED_PER_SWEEP)
    .execute();
  const ids = unwanted.map((job) => job.verification_id);
  let deleted = 0;
  for (let i = 0; i < ids.length; i += UNWANTED_BATCH) {
    await nextTurn();
    const result = await db
      .deleteFrom('delivery_jobs')
      .where('verification_id', 'in', ids.slice(i, i + UNWANTED_BATCH))
      .where(notPending)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

/** The queue as a metrics scrape sees it: jobs waiting, jobs due now, and when the oldest was queued. */
export async function queueStats(
  db: Db,
  now: number,
): Promise<{ queued: number; due: number; oldestCreatedAt: number | null }> {
  const row = await db
    .selectFrom('delivery_jobs')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('queued'),
      // Due and free, as the dispatcher's poll sees it (a job held by a live attempt is not waiting).
      sql<
        number | string | null
      >`sum(case when next_attempt_at <= ${now} and lease_until <= ${now} then 1 else 0 end)`.as('due'),
      eb.fn.min<number | null>('created_at').as('oldest'),
    ])
    .executeTakeFirstOrThrow();
  return { queued: Number(row.queued), due: Number(row.due ?? 0), oldestCreatedAt: row.oldest };
}
