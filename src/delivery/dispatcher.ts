// Durable delivery. Every send commits a delivery job with its verification (delivery-jobs.ts); the send then
// makes the first attempt itself and waits a short deadline for it, and this dispatcher finishes whatever the
// deadline did not cover: retries after transient failures, fail-over, and jobs left behind by a process that
// died (delivery-attempt.ts makes each attempt). A job ends when its code is handed over, definitively
// rejected, no longer wanted, or out of time; its row (and the sealed code in it) is then deleted.

import { createClaimedWork } from '../claimed-work.js';
import type { Clock } from '../clock.js';
import { newToken } from '../ids.js';
import type { QueueReading } from '../metrics/metrics.js';
import { type ResealTally, resealAll, seal } from '../sealing.js';
import type { KeyRing } from '../secret.js';
import type { Store } from '../store/database.js';
import type { VerificationsTable } from '../store/tables.js';
import type { EmitEvent } from '../webhooks/emit.js';
import type { CarrierChannels } from '../workspaces/channels.js';
import { createDeliveryAttempts, type DeliveryMetrics, type KnownSend } from './attempt.js';
import { leaseMsFor } from './backoff.js';
import * as jobs from './jobs.js';
import type { ProviderRouter } from './provider.js';

/** Jobs one claim takes; a full batch is followed at once by another. */
const CLAIM_BATCH = 20;
/** Hand-overs one process makes at once: the rest wait, claimed by no one, for this or another process. */
const MAX_IN_FLIGHT = 100;

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  providers: ProviderRouter;
  /** deriveKeys(secrets, 'delivery-jobs'): the current key seals the code inside the job; any opens it. */
  jobKeys: KeyRing;
  /** The longest one hand-over can take (the carrier adapters' timeout); the lease outlasts it. */
  carrierTimeoutMs: number;
  /** Jitter source; tests pin it. */
  random?: () => number;
  /** Where failures of the dispatcher's own work are reported (default: a process warning). */
  warn?: (message: string, err?: unknown) => void;
  /** Which channels each carrier carries. */
  carrierTypes: readonly CarrierChannels[];
  metrics: DeliveryMetrics;
  /** Webhook events of settled hand-overs. */
  emit: EmitEvent;
}

/** A job the send has just committed, held by that send for its first attempt. */
export interface NewJob {
  row: jobs.DeliveryJobRow;
  token: string;
}

export function createDispatcher(deps: DispatcherDeps) {
  const { store, clock, jobKeys } = deps;
  const { db } = store;
  const leaseMs = leaseMsFor(deps.carrierTimeoutMs);
  const warn =
    deps.warn ??
    ((message: string, err?: unknown) => process.emitWarning(`delivery: ${message} (${String(err ?? '')})`));
  const { attempt, attemptClaimed } = createDeliveryAttempts({
    db,
    clock,
    providers: deps.providers,
    jobKeys,
    random: deps.random ?? Math.random,
    warn,
    carrierTypes: deps.carrierTypes,
    committed: store.committed,
    metrics: deps.metrics,
    emit: deps.emit,
  });
  // Claimed by one statement each (PostgreSQL SKIP LOCKED, SQLite's one writer): several processes share the jobs.
  const work = createClaimedWork({
    anyDue: () => jobs.anyDue(db, clock.now()),
    claim: (token, limit) => jobs.claimDueJobs(store, { now: clock.now(), leaseMs, token, limit }),
    attempt: (job: jobs.DeliveryJobRow, token) => attemptClaimed(job, token),
    batch: CLAIM_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
    warn,
    what: 'delivery attempt',
  });
  const { track, runDue, drain } = work;

  return {
    leaseMs,

    /**
     * The provider of a send's first hand-over when that hand-over is a write to this database (the send makes it
     * in its own transaction: inline-hand-over.ts); undefined when it leaves the process (a job, then an attempt).
     */
    localProviderFor: deps.providers.localProviderFor,

    /** The job row for a new verification, held by the sending request for its first attempt. */
    newJob(verification: { id: string; workspace_id: string }, code: string, now: number): NewJob {
      const token = newToken();
      return {
        token,
        row: {
          verification_id: verification.id,
          workspace_id: verification.workspace_id,
          sealed_code: seal(jobKeys[0], verification.id, code),
          attempts: 0,
          next_attempt_at: now,
          lease_until: now + leaseMs,
          lease_token: token,
          last_error: null,
          created_at: now,
        },
      };
    },

    /**
     * The first attempt of a job its send committed, with the verification and its senders as the send has them;
     * it goes on in the background if the caller stops waiting. Resolves to the verification as the attempt left
     * it when it settled the job (undefined when a retry was scheduled instead).
     */
    firstAttempt(job: NewJob, code: string, known: KnownSend): Promise<VerificationsTable | undefined> {
      return track(attempt(job.row, job.token, code, known));
    },

    /**
     * Claims the due jobs nobody holds (as many as this process has room for) and works them; returns how many
     * it claimed. With wait: false it returns once they are claimed, their attempts going on in the background.
     */
    runDue,

    /**
     * Every job's sealed code against the key ring; with `write`, those only the previous secret opens are sealed
     * again under the current one (`secret reseal`). Leases are left alone: an attempt under way goes on.
     */
    async resealCodes(write: boolean): Promise<ResealTally> {
      const rows = await jobs.listSealedCodes(db);
      return resealAll(
        jobKeys,
        rows,
        write ? (id, from, to) => jobs.replaceSealedCode(db, id, from, to) : undefined,
      );
    },

    /** The queue now, for a metrics scrape: read through the store's reader (off the serving thread on SQLite). */
    async queue(): Promise<QueueReading> {
      const now = clock.now();
      const stats = await jobs.queueStats(store.reader, now);
      const age = stats.oldestCreatedAt === null ? 0 : Math.max(0, now - stats.oldestCreatedAt) / 1000;
      return { queued: stats.queued, due: stats.due, oldestAgeSeconds: age };
    },

    /** Deletes the jobs of codes nobody wants any more (the sweeper's part; found through the reader); how many. */
    dropUnwanted: () => jobs.deleteUnwantedJobs(db, store.reader),

    /** Polls for due jobs every `intervalMs`; the returned stop waits for the attempts under way. */
    startPolling: work.startPolling,

    /** Waits for every attempt under way in this process. */
    drain,
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
