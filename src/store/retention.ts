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
import { DELETE_BATCH, deletedRows, inBatches } from './batches.js';
import type { Store } from './database.js';
import { withLockedBatch } from './locked-batch.js';
import type { Database } from './tables.js';

const HOUR_MS = 3_600_000;
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
  /** A batch of rows to delete, chosen once (store/locked-batch.ts), as `batch`. */
  // biome-ignore lint/suspicious/noExplicitAny: any table's selection
  const batchOf = <O>(select: SelectQueryBuilder<Database, any, O>) =>
    withLockedBatch(db, store.dialect, select);

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

  /** Deletes outbox messages created before `cutoff`, in batches. */
  async function pruneOutbox(cutoff: number): Promise<number> {
    return inBatches(() =>
      deletedRows(
        batchOf(
          db.selectFrom('outbox_messages').select('id').where('created_at', '<', cutoff).limit(DELETE_BATCH),
        )
          .deleteFrom('outbox_messages')
          .where('id', 'in', (eb) => eb.selectFrom('batch').select('id')),
      ),
    );
  }

  /** Deletes refused sends made before `cutoff`, in batches. */
  async function pruneRefusedSends(cutoff: number): Promise<number> {
    return inBatches(() =>
      deletedRows(
        batchOf(
          db.selectFrom('refused_sends').select('id').where('created_at', '<', cutoff).limit(DELETE_BATCH),
        )
          .deleteFrom('refused_sends')
          .where('id', 'in', (eb) => eb.selectFrom('batch').select('id')),
      ),
    );
  }

  /** Deletes audit entries made before `cutoff`, in batches. */
  async function pruneAudit(cutoff: number): Promise<number> {
    return inBatches(() =>
      deletedRows(
        batchOf(db.selectFrom('audit_log').select('id').where('at', '<', cutoff).limit(DELETE_BATCH))
          .deleteFrom('audit_log')
          .where('id', 'in', (eb) => eb.selectFrom('batch').select('id')),
      ),
    );
  }

  /**
   * Deletes the read-models' rows that stand for verifications created before `before` only: the roll-ups of
   * the hours before it, the directory's numbers last sent to before it.
   */
  async function pruneReadModels(before: number): Promise<{ rollups: number; numbers: number }> {
    const rollups = await db
      .deleteFrom('verification_rollups')
      .where('hour', '<', Math.floor(before / HOUR_MS) * HOUR_MS)
      .executeTakeFirst();
    const numbers = await inBatches(() =>
      deletedRows(
        batchOf(
          db
            .selectFrom('phone_directory')
            .select(['workspace_id', 'reversed'])
            .where('last_created_at', '<', before)
            .limit(DELETE_BATCH),
        )
          .deleteFrom('phone_directory')
          .where((eb) =>
            eb(
              eb.refTuple('workspace_id', 'reversed'),
              'in',
              eb
                .selectFrom('batch')
                .select(['workspace_id', 'reversed'])
                .$asTuple('workspace_id', 'reversed'),
            ),
          ),
      ),
    );
    return { rollups: Number(rollups.numDeletedRows), numbers };
  }

  /** Deletes failed checks made at or before `before`, in batches (a number's failures at one moment go together). */
  async function pruneGuessFailures(before: number): Promise<number> {
    return inBatches(() =>
      deletedRows(
        batchOf(
          db
            .selectFrom('guess_failures')
            .select(['workspace_id', 'phone', 'at'])
            .where('at', '<=', before)
            .limit(DELETE_BATCH),
        )
          .deleteFrom('guess_failures')
          .where((eb) =>
            eb(
              eb.refTuple('workspace_id', 'phone', 'at'),
              'in',
              eb
                .selectFrom('batch')
                .select(['workspace_id', 'phone', 'at'])
                .$asTuple('workspace_id', 'phone', 'at'),
            ),
          ),
      ),
    );
  }

  /** Deletes settled webhook messages settled before `cutoff`, and attempts made before it, in batches. */
  async function pruneWebhooks(
    cutoff: number,
  ): Promise<{ webhookMessages: number; webhookAttempts: number }> {
    const webhookMessages = await inBatches(() =>
      deletedRows(
        batchOf(
          db
            .selectFrom('webhook_messages')
            .select(['event_id', 'endpoint_id'])
            .where('state', '!=', 'pending')
            .where('settled_at', '<', cutoff)
            .limit(DELETE_BATCH),
        )
          .deleteFrom('webhook_messages')
          .where((eb) =>
            eb(
              eb.refTuple('event_id', 'endpoint_id'),
              'in',
              eb.selectFrom('batch').select(['event_id', 'endpoint_id']).$asTuple('event_id', 'endpoint_id'),
            ),
          ),
      ),
    );
    const webhookAttempts = await inBatches(() =>
      deletedRows(
        batchOf(db.selectFrom('webhook_attempts').select('id').where('at', '<', cutoff).limit(DELETE_BATCH))
          .deleteFrom('webhook_attempts')
          .where('id', 'in', (eb) => eb.selectFrom('batch').select('id')),
      ),
    );
    return { webhookMessages, webhookAttempts };
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
      const { rollups, numbers } = await pruneReadModels(Math.min(cutoff, Number(oldest?.at ?? cutoff)));
      const outbox = await pruneOutbox(cutoff);
      // A number's lock row is touched by every send, so one older than the cutoff has no kept verification.
      const locks = await db.deleteFrom('phone_locks').where('touched_at', '<', cutoff).executeTakeFirst();
      const counters = await db
        .deleteFrom('request_counters')
        .where('window_start', '<', now - COUNTER_KEEP_MS)
        .executeTakeFirst();
      // A key past expires_at is free for the next request anyway (verification/idempotency.ts takes it over).
      const keys = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
      const failures = await pruneGuessFailures(now - GUESS_FAILURES_KEEP_MS);
      return {
        verifications,
        outbox,
        events,
        phoneLocks: Number(locks.numDeletedRows),
        requestCounters: Number(counters.numDeletedRows),
        guessFailures: failures,
        rollups,
        numbers,
        idempotencyKeys: Number(keys.numDeletedRows),
        audit: await pruneAudit(now - deps.auditRetentionDays * DAY_MS),
        ...(await pruneWebhooks(now - Math.min(WEBHOOK_KEEP_MS, deps.retentionDays * DAY_MS))),
        refusedSends: await pruneRefusedSends(cutoff),
      };
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;
