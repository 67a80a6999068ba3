// One hand-over attempt of a delivery job, by the process that holds the job's lease: build the message, pick
// the sender (the send's own, or the next carrier account's on the same channel after transient failures), hand
// it to the provider, and record what came of it: handed over or rejected (the job is settled and deleted), or a
// transient failure (the next attempt is scheduled with backoff, unless the code would expire first).
import type { Clock } from '../clock.js';
import { toTimestamp } from '../clock.js';
import type { Metrics } from '../metrics/metrics.js';
import { unsealWithAny } from '../sealing.js';
import type { KeyRing } from '../secret.js';
import type { Db } from '../store/database.js';
import type { VerificationsTable } from '../store/tables.js';
import { createTimeline, type NewEvent } from '../timeline/timeline.js';
import type { EmitEvent } from '../webhooks/emit.js';
import { type CarrierChannels, deliverySenders } from '../workspaces/channels.js';
import { listSenders, type SenderRow } from '../workspaces/repository.js';
import { retryDelayMs } from './backoff.js';
import { carrierText } from './carrier-text.js';
import * as jobs from './jobs.js';
import { outboundMessage } from './outbound-message.js';
import {
  type DeliveryProvider,
  type HandOver,
  type OutboundMessage,
  type ProviderRouter,
  TransientDeliveryError,
} from './provider.js';
import * as repo from './verification-delivery.js';

export interface DeliveryAttemptDeps {
  db: Db;
  clock: Clock;
  providers: ProviderRouter;
  /** deriveKeys(secrets, 'delivery-jobs'): open the code sealed in a job. */
  jobKeys: KeyRing;
  random: () => number;
  warn: (message: string, err?: unknown) => void;
  /** The commit of the writes so far (the store's): a code reaches no carrier before its verification is durable. */
  committed: () => Promise<void> | undefined;
  /** Which channels each carrier carries (fail-over only moves to a number that can send on the channel). */
  carrierTypes: readonly CarrierChannels[];
  metrics: DeliveryMetrics;
  /** Webhook events of the settled hand-over, emitted in its transaction. */
  emit: EmitEvent;
}

/** What the send that committed a job knows: its verification, senders and whether its workspace emits events. */
export interface KnownSend {
  row: VerificationsTable;
  senders: SenderRow[];
  /** The workspace has webhook endpoints (as the send's key look-up read it). */
  webhooks?: boolean;
}

/** What the attempts count: each hand-over's result, retries, fail-overs and give-ups. */
export type DeliveryMetrics = Pick<
  Metrics,
  'deliveryAttempt' | 'deliveryRetry' | 'deliveryFailover' | 'deliveryGaveUp'
>;

type Attempt =
  | { kind: 'handed_over'; provider: string; providerId: string }
  | { kind: 'rejected'; provider: string; handOver: Extract<HandOver, { ok: false }> }
  | { kind: 'transient'; provider: string; message: string; retryAfterMs: number | undefined };

/** error_message as a whole: a carrier's words (at most MAX_CARRIER_TEXT) with ours around them. */
const MAX_ERROR_MESSAGE = 300;

export function createDeliveryAttempts(deps: DeliveryAttemptDeps) {
  const { db, clock, providers, jobKeys, random, warn, metrics } = deps;
  const timeline = createTimeline({
    db,
    clock,
    warn: (err) => warn('a timeline event was not written', err),
  });

  async function handOver(provider: DeliveryProvider, message: OutboundMessage): Promise<Attempt> {
    try {
      const result = await provider.send(message);
      // Whatever a provider says goes through the one rule for a carrier's words (printable, bounded).
      return result.ok
        ? { kind: 'handed_over', provider: provider.name, providerId: result.providerId }
        : {
            kind: 'rejected',
            provider: provider.name,
            handOver: { ...result, errorMessage: carrierText(result.errorMessage) },
          };
    } catch (err) {
      // Anything but a definitive rejection is worth another try: the carrier's transient failures, and our own
      // (a database hiccup while the development provider writes its outbox).
      if (err instanceof TransientDeliveryError) {
        return {
          kind: 'transient',
          provider: provider.name,
          message: carrierText(err.message),
          retryAfterMs: err.retryAfterMs,
        };
      }
      warn(`the ${provider.name} provider failed unexpectedly`, err);
      return {
        kind: 'transient',
        provider: provider.name,
        message: 'the provider failed unexpectedly',
        retryAfterMs: undefined,
      };
    }
  }

  /**
   * Settles the job: records the hand-over's outcome on the verification, deletes the job and writes the
   * timeline event, in one transaction (one commit: this runs once for every code sent).
   */
  async function settle(
    job: jobs.DeliveryJobRow,
    token: string,
    outcome: repo.DeliveryOutcome,
    event: NewEvent,
    held?: VerificationsTable,
    emitting = true,
  ): Promise<VerificationsTable | undefined> {
    const changed = await db.transaction().execute(async (tx) => {
      const now = await repo.recordHandOver(tx, job.verification_id, outcome, clock.now());
      await jobs.deleteJob(tx, job.verification_id, token);
      await timeline.record(tx, [event]);
      if (emitting && held && now) {
        // A rejection that ends a pending code makes it undelivered; anything else updates its delivery.
        const undelivered = held.status === 'pending' && now.status === 'undelivered';
        await deps.emit(tx, undelivered ? 'verification.undelivered' : 'verification.delivery_updated', {
          ...held,
          ...now,
        });
      }
      return now;
    });
    // The row the caller holds, as it now is: only these columns change after a send.
    return held && changed ? { ...held, ...changed } : undefined;
  }

  async function giveUp(
    job: jobs.DeliveryJobRow,
    token: string,
    sender: string,
    provider: string,
    why: string,
    held?: VerificationsTable,
    emitting = true,
  ): Promise<VerificationsTable | undefined> {
    const errorMessage = carrierText(
      `Gave up after ${job.attempts} failed hand-over attempt(s): ${why}`,
      MAX_ERROR_MESSAGE,
    );
    metrics.deliveryGaveUp(held?.channel ?? 'unknown');
    return settle(
      job,
      token,
      { provider, ok: false, providerId: null, errorCode: 'provider_error', errorMessage, from: sender },
      {
        verificationId: job.verification_id,
        workspaceId: job.workspace_id,
        kind: 'gave_up',
        detail: { provider, attempts: job.attempts, error_message: errorMessage },
      },
      held,
      emitting,
    );
  }

  /**
   * One attempt of a job the caller holds (by `token`), with the code in hand. The send that just committed the
   * job passes the verification and its senders (`known`), which nobody else can have changed but a racing
   * supersede or check, harmless here: the hand-over of a code no longer wanted is what a retry would do too.
   * Returns the verification as the attempt left it when it settled the job; undefined otherwise.
   */
  async function attempt(
    job: jobs.DeliveryJobRow,
    token: string,
    code: string,
    known?: KnownSend,
  ): Promise<VerificationsTable | undefined> {
    // A job worked in the background does not know its workspace's endpoints: the fan-out finds them, or none.
    const emitting = known?.webhooks ?? true;
    const row = known?.row ?? (await repo.findVerification(db, job.workspace_id, job.verification_id));
    if (row?.status !== 'pending' || row.expires_at <= clock.now()) {
      // Verified, canceled, superseded or out of time: nobody wants this code any more.
      await jobs.deleteJob(db, job.verification_id, token);
      return undefined;
    }
    const numbers = known?.senders ?? (await listSenders(db, row.workspace_id));
    const senders = deliverySenders(
      numbers,
      row.channel,
      row.country ?? '',
      row.from_number,
      deps.carrierTypes,
    );
    const sender: SenderRow | undefined = senders[job.attempts % Math.max(1, senders.length)];
    if (!sender) {
      return giveUp(
        job,
        token,
        row.from_number,
        row.delivery_provider ?? 'none',
        `the number ${row.from_number} was removed from the workspace`,
        row,
        emitting,
      );
    }
    const provider = await providers.providerFor(sender, row.mode);
    // No code leaves the process before its verification is durable (a crash would leave a code on a phone that
    // no verification knows); a local hand-over commits with it instead.
    if (!provider.sendIn) await deps.committed();
    const result = await handOver(provider, outboundMessage(row, sender.number, code));
    metrics.deliveryAttempt(row.channel, result.provider, result.kind);
    if (sender.number !== row.from_number) metrics.deliveryFailover(row.channel);
    const about = { verificationId: row.id, workspaceId: row.workspace_id };

    if (result.kind === 'handed_over') {
      return settle(
        job,
        token,
        {
          provider: result.provider,
          ok: true,
          providerId: result.providerId,
          errorCode: null,
          errorMessage: null,
          from: sender.number,
        },
        {
          ...about,
          kind: 'handed_over',
          detail: {
            provider: result.provider,
            provider_id: result.providerId,
            hand_over_attempt: job.attempts + 1,
          },
        },
        row,
        emitting,
      );
    }
    if (result.kind === 'rejected') {
      const { errorCode, errorMessage, providerId } = result.handOver;
      return settle(
        job,
        token,
        { provider: result.provider, ok: false, providerId, errorCode, errorMessage, from: sender.number },
        {
          ...about,
          kind: 'rejected',
          detail: { provider: result.provider, error_code: errorCode, error_message: errorMessage },
        },
        row,
        emitting,
      );
    }

    const failed = { ...job, attempts: job.attempts + 1 };
    const lastError = `the ${result.provider} provider failed to take the message (${result.message})`;
    const nextAttemptAt = clock.now() + retryDelayMs(failed.attempts, result.retryAfterMs, random);
    if (nextAttemptAt >= row.expires_at) {
      return giveUp(
        failed,
        token,
        sender.number,
        result.provider,
        `${lastError}; the code expires before another try`,
        row,
        emitting,
      );
    }
    if (
      !(await jobs.rescheduleJob(db, job.verification_id, token, {
        attempts: failed.attempts,
        nextAttemptAt,
        lastError,
      }))
    ) {
      return undefined; // The lease ran out and another process holds the job now: it records what comes next.
    }
    metrics.deliveryRetry(row.channel, result.provider);
    const next = senders[failed.attempts % senders.length] ?? sender;
    const message = `Not handed over yet: attempt ${failed.attempts} failed (${lastError}); attempt ${failed.attempts + 1} (from ${next.number}) is due at ${toTimestamp(nextAttemptAt)}.`;
    await repo.recordRetryPending(
      db,
      row.id,
      { provider: result.provider, from: sender.number, message: carrierText(message, MAX_ERROR_MESSAGE) },
      clock.now(),
    );
    await timeline.recordAfter([
      {
        ...about,
        kind: 'retry_scheduled',
        detail: {
          provider: result.provider,
          hand_over_attempt: failed.attempts,
          error_message: lastError,
          next_attempt_at: nextAttemptAt,
        },
      },
    ]);
    return undefined;
  }

  /** An attempt of a claimed job whose code is still sealed in the row. */
  async function attemptClaimed(job: jobs.DeliveryJobRow, token: string): Promise<void> {
    const code = unsealWithAny(jobKeys, job.verification_id, job.sealed_code)?.plain;
    if (code === undefined) {
      const row = await repo.findVerification(db, job.workspace_id, job.verification_id);
      await giveUp(
        job,
        token,
        row?.from_number ?? '',
        row?.delivery_provider ?? 'none',
        "the job's code cannot be read with this server's secret (PHONE_VERIFY_SECRET changed?)",
        row,
      );
      return;
    }
    await attempt(job, token, code);
  }

  return { attempt, attemptClaimed };
}

export type DeliveryAttempts = ReturnType<typeof createDeliveryAttempts>;
