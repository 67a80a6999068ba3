// Retention: finished verifications (with their timelines), refused sends and outbox messages older than
// RETENTION_DAYS are deleted, with the per-number locks, request counters, failed checks and idempotency keys that no longer matter,
// and the dashboard's read-models of them (the overview's roll-ups, the phone directory's numbers) once no
// verification they stand for is left.
// The cutoff is a whole hour, so an hour's verifications go together with its roll-ups. Batched, and on PostgreSQL
// each batch skips rows another process is already deleting (FOR UPDATE SKIP LOCKED), so sweepers share the work.
// The audit trail has a retention of its own (AUDIT_RETENTION_DAYS, a year by default): it says who changed what,
// which matters long after the codes themselves.
import type { SelectQueryBuilder } from 'kysely';
import type { Clock } from '../clock.js';
import { DELETE_BATCH, deleteInBatches, inBatches } from './batches.js';
import type { Store } from './database.js';
import type { Database } from './tables.js';
import { readWatermark } from './watermarks.js';

const HOUR_MS = 3_600_000;
const COUNT_KEY = ['workspace_id', 'hour', 'channel', 'country', 'prefix', 'seconds', 'shard'] as const;
const DAY_MS = 24 * HOUR_MS;
/** Request counters are one-minute windows; two minutes back nothing reads them. */
const COUNTER_KEEP_MS = 120_000;
/**
 * Failed checks count against their number's guess ceiling (limits/guess-ceiling.ts) for its workspace's window,
 * a day at most (workspaces/service.ts LIMIT_RANGES); older ones no look-up reaches.
 */
export const GUESS_FAILURES_KEEP_MS = DAY_MS;
/**
 * Settled webhook messages (their body is a snapshot of a verification) and webhook attempts are kept a week, for
 * the dashboard's attempts and "resend" (docs/webhooks.md), or RETENTION_DAYS where that is shorter.
 */
export const WEBHOOK_KEEP_MS = 7 * DAY_MS;

export interface PruneResult {
  verifications: number;
  outbox: number;
  events: number;
  phoneLocks: number;
  requestCounters: number;
  /** Failed checks older than the longest guess-ceiling window. */
  guessFailures: number;
  /** Roll-up rows (stats/rollups.ts) of hours with no verification left. */
  rollups: number;
  /** Count rows (stats/counts.ts) of hours rolled up over a day ago. */
  counts: number;
  /** Phone directory entries (verification/phone-directory.ts) of numbers with no verification left. */
  numbers: number;
  /** Idempotency-Key rows (verification/idempotency.ts) past their 24 hours. */
  idempotencyKeys: number;
  /** Audit entries older than AUDIT_RETENTION_DAYS. */
  audit: number;
  /** Settled webhook messages and webhook attempts past WEBHOOK_KEEP_MS. */
  webhookMessages: number;
  webhookAttempts: number;
  /** Refused sends (verification/refused-sends.ts) older than the cutoff, like the verifications. */
  refusedSends: number;
}

// The rows retention deletes from the tables whose old rows it finds through the sweeper's indexes (migration
// 0019); each builder is what the plan tests read (test/store/sweep-indexes.test.ts).

/**
 * Outbox messages created before `cutoff`, through the stamp's index: a message's `seq` is its creation in
 * microseconds (clock.ts `monotonicStamps`); `created_at` keeps the cutoff exact.
 */
export function outboxCreatedBefore<O>(
  rows: SelectQueryBuilder<Database, 'outbox_messages', O>,
  cutoff: number,
): SelectQueryBuilder<Database, 'outbox_messages', O> {
  return rows.where('seq', '<', cutoff * 1000).where('created_at', '<', cutoff);
}

/** Webhook messages settled before `before`, through the partial index of the settled ones. */
export function webhookMessagesSettledBefore<O>(
  rows: SelectQueryBuilder<Database, 'webhook_messages', O>,
  before: number,
): SelectQueryBuilder<Database, 'webhook_messages', O> {
  return rows.where('state', '!=', 'pending').where('settled_at', '<', before);
}

/** Webhook attempts made before `before`, through their index by time. */
export function webhookAttemptsBefore<O>(
  rows: SelectQueryBuilder<Database, 'webhook_attempts', O>,
  before: number,
): SelectQueryBuilder<Database, 'webhook_attempts', O> {
  return rows.where('at', '<', before);
}

export function createRetention(deps: {
  store: Store;
  clock: Clock;
  retentionDays: number;
  auditRetentionDays: number;
}) {
  const { store, clock } = deps;
  const { db } = store;
  const lock = <T extends { forUpdate(): T; skipLocked(): T }>(q: T): T =>
    store.dialect === 'postgres' ? q.forUpdate().skipLocked() : q;

  /**
   * Deletes finished verifications created before `cutoff` with their timelines, a batch per transaction (the
   * batch's rows stay locked until their events and they are gone). Pending ones are never deleted.
   */
  async function pruneVerifications(cutoff: number): Promise<{ verifications: number; events: number }> {
    let events = 0;
    const verifications = await inBatches(() =>
      db.transaction().execute(async (tx) => {
        const batch = lock(
          tx
            .selectFrom('verifications')
            .select('id')
            .where('created_at', '<', cutoff)
            .where('status', '!=', 'pending')
            // Oldest first: while retention is behind, the hours it has finished hold no row at all.
            .orderBy('created_at')
            .limit(DELETE_BATCH),
        );
        const ids = (await batch.execute()).map((r) => r.id);
        if (ids.length === 0) return 0;
        const deleted = await tx
          .deleteFrom('verification_events')
          .where('verification_id', 'in', ids)
          .executeTakeFirst();
        events += Number(deleted.numDeletedRows);
        await tx.deleteFrom('verifications').where('id', 'in', ids).execute();
        return ids.length;
      }),
    );
    return { verifications, events };
  }

  return {
    async prune(): Promise<PruneResult> {
      const now = clock.now();
      const cutoff = Math.floor((now - deps.retentionDays * DAY_MS) / HOUR_MS) * HOUR_MS;
      const { verifications, events } = await pruneVerifications(cutoff);
      // The oldest verification left (a pending one, or one retention has not reached yet) keeps its hour's
      // roll-ups and its number's entry: the overview and the search still count and find it.
      const oldest = await db
        .selectFrom('verifications')
        .select((eb) => eb.fn.min('created_at').as('at'))
        .executeTakeFirst();
      const readModelsBefore = Math.min(cutoff, Number(oldest?.at ?? cutoff));
      const rollups = await db
        .deleteFrom('verification_rollups')
        .where('hour', '<', Math.floor(readModelsBefore / HOUR_MS) * HOUR_MS)
        .executeTakeFirst();
      // The counts of an hour (stats/counts.ts) are read until it is rolled up; a day later no overview that read
      // the watermark before it moved is still reading them.
      const rolledBefore = await readWatermark(db, 'verification_rollups');
      const counts = await deleteInBatches(db, 'verification_counts', COUNT_KEY, (q) =>
        q.where('hour', '<', rolledBefore - DAY_MS),
      );
      // The directory's numbers last sent to before it stand for verifications created before it only.
      const numbers = await deleteInBatches(db, 'phone_directory', ['workspace_id', 'reversed'], (q) =>
        q.where('last_created_at', '<', readModelsBefore),
      );
      const outbox = await deleteInBatches(db, 'outbox_messages', ['id'], (q) =>
        outboxCreatedBefore(q, cutoff),
      );
      // A number's lock row (PostgreSQL's) is touched by every send, so one older than the cutoff has no kept
      // verification.
      const locks = await deleteInBatches(db, 'phone_locks', ['workspace_id', 'phone'], (q) =>
        q.where('touched_at', '<', cutoff),
      );
      const counters = await db
        .deleteFrom('request_counters')
        .where('window_start', '<', now - COUNTER_KEEP_MS)
        .executeTakeFirst();
      // A key past expires_at is free for the next request anyway (verification/idempotency.ts takes it over). One
      // a send where the client sends a key (the Node client does on every send): an hour of sends at a time.
      const keys = await deleteInBatches(db, 'idempotency_keys', ['workspace_id', 'key'], (q) =>
        q.where('expires_at', '<=', now),
      );
      // Failed checks count against their number's guess ceiling for a day at most; a number's failures at one
      // moment go together.
      const failures = await deleteInBatches(db, 'guess_failures', ['workspace_id', 'phone', 'at'], (q) =>
        q.where('at', '<=', now - GUESS_FAILURES_KEEP_MS),
      );
      const webhooksBefore = now - Math.min(WEBHOOK_KEEP_MS, deps.retentionDays * DAY_MS);
      return {
        verifications,
        outbox,
        events,
        phoneLocks: locks,
        requestCounters: Number(counters.numDeletedRows),
        guessFailures: failures,
        rollups: Number(rollups.numDeletedRows),
        counts,
        numbers,
        idempotencyKeys: keys,
        audit: await deleteInBatches(db, 'audit_log', ['id'], (q) =>
          q.where('at', '<', now - deps.auditRetentionDays * DAY_MS),
        ),
        webhookMessages: await deleteInBatches(db, 'webhook_messages', ['event_id', 'endpoint_id'], (q) =>
          webhookMessagesSettledBefore(q, webhooksBefore),
        ),
        webhookAttempts: await deleteInBatches(db, 'webhook_attempts', ['id'], (q) =>
          webhookAttemptsBefore(q, webhooksBefore),
        ),
        refusedSends: await deleteInBatches(db, 'refused_sends', ['id'], (q) =>
          q.where('created_at', '<', cutoff),
        ),
      };
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;
