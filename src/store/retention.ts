// Retention: finished verifications and outbox messages older than RETENTION_DAYS are deleted, with the
// per-number locks and request counters that no longer matter. Batched, and on PostgreSQL each batch skips
// rows another process is already deleting (FOR UPDATE SKIP LOCKED), so several sweepers share the work.
import { sql } from 'kysely';
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
  phoneLocks: number;
  requestCounters: number;
}

export function createRetention(deps: { store: Store; clock: Clock; retentionDays: number }) {
  const { store, clock } = deps;
  const { db } = store;
  const lock = <T extends { forUpdate(): T; skipLocked(): T }>(q: T): T =>
    store.dialect === 'postgres' ? q.forUpdate().skipLocked() : q;

  /** Deletes rows created before `cutoff` in batches; pending verifications are never deleted. */
  async function deleteOld(table: 'verifications' | 'outbox_messages', cutoff: number): Promise<number> {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const result = await db
        .deleteFrom(table)
        .where('id', 'in', (eb) => {
          let batch = eb.selectFrom(table).select('id').where('created_at', '<', cutoff).limit(BATCH);
          if (table === 'verifications') batch = batch.where(sql.ref('status'), '!=', 'pending');
          return lock(batch);
        })
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
      const verifications = await deleteOld('verifications', cutoff);
      const outbox = await deleteOld('outbox_messages', cutoff);
      // A number's lock row is touched by every send, so one older than the cutoff has no kept verification.
      const locks = await db.deleteFrom('phone_locks').where('touched_at', '<', cutoff).executeTakeFirst();
      const counters = await db
        .deleteFrom('request_counters')
        .where('window_start', '<', now - COUNTER_KEEP_MS)
        .executeTakeFirst();
      return {
        verifications,
        outbox,
        phoneLocks: Number(locks.numDeletedRows),
        requestCounters: Number(counters.numDeletedRows),
      };
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;
