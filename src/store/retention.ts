// Retention: finished verifications (with their timelines) and outbox messages older than RETENTION_DAYS are
// deleted, with the per-number locks and request counters that no longer matter. Batched, and on PostgreSQL
// each batch skips rows another process is already deleting (FOR UPDATE SKIP LOCKED), so sweepers share the work.
import type { Clock } from '../clock.js';
import type { Store } from './database.js';

const BATCH = 500;
const MAX_BATCHES = 20;
const DAY_MS = 86_400_000;
/** Request counters are one-minute windows; two minutes back nothing reads them. */
const COUNTER_KEEP_MS = 120_000;

export interface PruneResult {
  verifications: number;
  outbox: number;
  events: number;
  phoneLocks: number;
  requestCounters: number;
}

export function createRetention(deps: { store: Store; clock: Clock; retentionDays: number }) {
  const { store, clock } = deps;
  const { db } = store;
  const lock = <T extends { forUpdate(): T; skipLocked(): T }>(q: T): T =>
    store.dialect === 'postgres' ? q.forUpdate().skipLocked() : q;

  /**
   * Deletes finished verifications created before `cutoff` with their timelines, a batch per transaction (the
   * batch's rows stay locked until their events and they are gone). Pending ones are never deleted.
   */
  async function pruneVerifications(cutoff: number): Promise<{ verifications: number; events: number }> {
    const total = { verifications: 0, events: 0 };
    for (let i = 0; i < MAX_BATCHES; i++) {
      const done = await db.transaction().execute(async (tx) => {
        const batch = lock(
          tx
            .selectFrom('verifications')
            .select('id')
            .where('created_at', '<', cutoff)
            .where('status', '!=', 'pending')
            .limit(BATCH),
        );
        const ids = (await batch.execute()).map((r) => r.id);
        if (ids.length === 0) return 0;
        const events = await tx
          .deleteFrom('verification_events')
          .where('verification_id', 'in', ids)
          .executeTakeFirst();
        const rows = await tx.deleteFrom('verifications').where('id', 'in', ids).executeTakeFirst();
        total.events += Number(events.numDeletedRows);
        total.verifications += Number(rows.numDeletedRows);
        return ids.length;
      });
      if (done < BATCH) break;
    }
    return total;
  }

  /** Deletes outbox messages created before `cutoff`, in batches. */
  async function pruneOutbox(cutoff: number): Promise<number> {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const result = await db
        .deleteFrom('outbox_messages')
        .where('id', 'in', (eb) =>
          lock(eb.selectFrom('outbox_messages').select('id').where('created_at', '<', cutoff).limit(BATCH)),
        )
        .executeTakeFirst();
      const n = Number(result.numDeletedRows);
      total += n;
      if (n < BATCH) break;
    }
    return total;
  }

  return {
    async prune(): Promise<PruneResult> {
      const now = clock.now();
      const cutoff = now - deps.retentionDays * DAY_MS;
      const { verifications, events } = await pruneVerifications(cutoff);
      const outbox = await pruneOutbox(cutoff);
      // A number's lock row is touched by every send, so one older than the cutoff has no kept verification.
      const locks = await db.deleteFrom('phone_locks').where('touched_at', '<', cutoff).executeTakeFirst();
      const counters = await db
        .deleteFrom('request_counters')
        .where('window_start', '<', now - COUNTER_KEEP_MS)
        .executeTakeFirst();
      return {
        verifications,
        outbox,
        events,
        phoneLocks: Number(locks.numDeletedRows),
        requestCounters: Number(counters.numDeletedRows),
      };
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;
