// The verification core: send, check, read and cancel, and the state machine of service-spec section 3.
// It knows nothing of HTTP; delivery goes through the provider interface.
import type { Clock } from '../clock.js';
import type { Dispatcher } from '../delivery/dispatcher.js';
import { AppError, invalidField } from '../errors.js';
import type { FraudGuard } from '../fraud/guard.js';
import { newId } from '../ids.js';
import type { Principal } from '../keys/service.js';
import { ceilingRefusal, enforceGuessCeiling } from '../limits/guess-ceiling.js';
import type { Metrics } from '../metrics/metrics.js';
import { acceptedSendOutcome, countCheck, countRefusedSend } from '../metrics/outcomes.js';
import { nextTurn } from '../next-turn.js';
import type { KeyRing } from '../secret.js';
import type { Db } from '../store/database.js';
import { batchesInTurn } from '../store/turn-batch.js';
import { createTimeline, listEvents, type TimelineEvent } from '../timeline/timeline.js';
import type { Mode } from '../vocabulary/modes.js';
import type { EmitEvent } from '../webhooks/emit.js';
import { workspacesWithEndpoints } from '../webhooks/repository.js';
import { validateBrandName } from '../workspaces/brand-name.js';
import { type CarrierChannels, selectSender } from '../workspaces/channels.js';
import { parseDestination, parsePhone } from '../workspaces/phone-number.js';
import { listNumbers, listSenders } from '../workspaces/repository.js';
import { allowedCountriesOf } from '../workspaces/service.js';
import { testNumberCode } from '../workspaces/test-numbers.js';
import { type BatchedOutcome, createAttemptBatch } from './attempt-batch.js';
import { recordAttempt } from './attempt-record.js';
import { type AttemptInput, judgementAt } from './attempt-statement.js';
import { codeMatches, generateCode, hashCode } from './code.js';
import { presentCheck, presentVerification } from './present.js';
import { type RefusedSend, recordRefusedSend } from './refused-sends.js';
import * as repo from './repository.js';
import type { CheckBody, CheckResult, SendBody, Verification } from './schemas.js';
import { createSendBatch } from './send-batch.js';
import { createSendSteps, type SendPlan } from './send-transaction.js';
import { expiredEvent } from './timeline-events.js';

export const METADATA_MAX_BYTES = 4096;

/** A verification as the dashboard shows it: every stored field but the code hash, and its timeline. */
export interface VerificationRecord {
  verification: Omit<repo.VerificationRow, 'code_hash'>;
  events: TimelineEvent[];
}

export interface VerificationDeps {
  db: Db;
  clock: Clock;
  /** deriveKeys(secrets, 'code-hash'): the current key hashes new codes; every key checks. */
  codeKeys: KeyRing;
  dispatcher: Dispatcher;
  /** How long a send waits for its first hand-over before answering (DELIVERY_WAIT_MS). */
  deliveryWaitMs: number;
  /** Which channels each carrier carries (a number on an SMS-only carrier never places a call). */
  carrierTypes: readonly CarrierChannels[];
  /** The pumping guard: its check runs in the send's transaction. */
  fraud: Pick<FraudGuard, 'takeRange' | 'guardSend' | 'passAhead'>;
  /** Where a timeline event that could not be written is reported (default: a process warning). */
  warn?: (err: unknown) => void;
  /** Sends and checks, counted by outcome. */
  metrics: Pick<Metrics, 'send' | 'check' | 'deliveryAttempt'>;
  /**
   * Webhook events, emitted in the transaction of the change they report; only for a workspace with an enabled
   * endpoint (its count comes with the API key's look-up), so the others pay nothing.
   */
  emit: EmitEvent;
}

/** Whether changes in this workspace emit webhook events (the count read with the request's key). */
const emitsFor = (principal: Principal) => principal.workspace.webhook_endpoints > 0;

/** JSON of the caller's metadata; undefined when it nests too deeply to serialise (never a 500 for input). */
function serialiseMetadata(metadata: object): string | undefined {
  try {
    return JSON.stringify(metadata);
  } catch {
    return undefined;
  }
}

/** Waits for `work` or `ms`, whichever comes first (undefined then); the work goes on either way. */
async function waitAtMost<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const first = await Promise.race([work, deadline]);
  clearTimeout(timer);
  return first;
}

export function createVerificationService(deps: VerificationDeps) {
  const { db, clock, codeKeys, dispatcher, deliveryWaitMs, emit } = deps;
  const timeline = createTimeline({ db, clock, warn: deps.warn });

  const notFound = (id: string) => new AppError('not_found', `No verification ${id}.`);

  /** The verification of the key's workspace and mode (the one read of get, check and cancel). */
  async function requireVerification(
    workspaceId: string,
    id: string,
    mode: Mode,
  ): Promise<repo.VerificationRow> {
    const row = await repo.findVerification(db, workspaceId, id, mode);
    // Unknown ids, other workspaces' ids and the other mode's ids get the same answer: nothing tells whether an
    // id exists.
    if (!row) throw notFound(id);
    return row;
  }

  /** The number's pending verification, else its newest (a national `phone` in `country`, else the workspace's). */
  async function requireForPhone(
    workspaceId: string,
    phone: string,
    country: CheckBody['country'],
    mode: Mode,
  ): Promise<repo.VerificationRow> {
    const numbers = await listNumbers(db, workspaceId);
    const parsed = parsePhone(phone, country ?? numbers[0]?.country);
    const found = await repo.findForPhone(db, workspaceId, parsed.e164, mode);
    if (!found) throw new AppError('no_verification', `No verification for ${parsed.e164}.`);
    return found;
  }

  /**
   * Expiry is enforced at every read: a pending verification at or past expires_at is stored as expired. With
   * `emitting` (the workspace has webhook endpoints, or the caller does not know), its event commits with it.
   */
  async function settled(row: repo.VerificationRow, emitting = true): Promise<repo.VerificationRow> {
    if (row.status !== 'pending' || row.expires_at > clock.now()) return row;
    const expired = emitting
      ? await db.transaction().execute(async (tx) => {
          const after = await repo.expireRowIfDue(tx, row.id, clock.now());
          if (after) await emit(tx, 'verification.expired', after);
          return after !== undefined;
        })
      : await repo.expireIfDue(db, row.id, clock.now());
    if (expired) await timeline.recordAfter([expiredEvent(row)]);
    return requireVerification(row.workspace_id, row.id, row.mode);
  }

  const judgeInTurn = createAttemptBatch({ clock, timeline });
  const steps = createSendSteps({ clock, timeline, fraud: deps.fraud, emit });
  const sendInTurn = createSendBatch(steps, deps);

  /**
   * A check's judgement in a transaction of its own: the ceiling held, the attempt, its failure counted and its
   * timeline events commit together, with the webhook event of a verification it verified or failed (`emitting`).
   * One commit a check (on PostgreSQL one round trip, with BEGIN and COMMIT). A refused check (429) spends nothing.
   */
  async function judgeAlone(input: AttemptInput, emitting: boolean): Promise<BatchedOutcome> {
    let now = 0;
    const judged = await db.transaction().execute(async (tx) => {
      // Read once the transaction runs: no code is accepted at or after expires_at, however long it waited.
      now = clock.now();
      const attempt = await recordAttempt(tx, timeline, { ...judgementAt(input, now), now });
      // Its outcome is left to the commit (which goes in the same round trip) unless a webhook event must
      // commit with the change of state it reports.
      if (!emitting) return attempt;
      const { spent } = await attempt.outcome;
      if (spent?.status === 'verified') await emit(tx, 'verification.verified', spent);
      if (spent?.status === 'failed') await emit(tx, 'verification.failed', spent);
      return attempt;
    });
    return { now, ...(await judged.outcome) };
  }

  const service = {
    async send(principal: Principal, body: SendBody): Promise<Verification> {
      // The workspace as this request's key lookup read it, and the key's mode.
      const ws = principal.workspace;
      const { mode } = principal;
      const live = mode === 'live';
      const emitting = emitsFor(principal);
      const numbers = await listSenders(db, ws.id);
      const channel = body.channel ?? 'voice';
      const brandName = body.brand_name === undefined ? ws.name : validateBrandName(body.brand_name);
      const metadata = serialiseMetadata(body.metadata ?? {});
      if (metadata === undefined || Buffer.byteLength(metadata) > METADATA_MAX_BYTES) {
        throw invalidField('metadata', `must be at most ${METADATA_MAX_BYTES} bytes as JSON`);
      }
      const destination = parseDestination(
        body.phone,
        body.country ?? numbers[0]?.country,
        allowedCountriesOf(ws.allowed_countries),
      );
      // A refused live send leaves one row for the log (refused-sends.ts), written by the refusal itself. Test
      // sends leave none: the refused sends are the live abuse picture.
      const refusedSend = (reason: RefusedSend['reason'], blockId: string | null): RefusedSend => ({
        workspaceId: ws.id,
        phone: destination.e164,
        country: destination.country,
        channel,
        reason,
        blockId,
        at: clock.now(),
      });
      if (destination.refusal) {
        if (live) await recordRefusedSend(db, refusedSend('number_type', null));
        throw destination.refusal;
      }
      const sender = selectSender(numbers, channel, destination.country, deps.carrierTypes);

      // A test key's send to one of the workspace's test numbers takes its fixed code (and that code's length).
      const fixed = live ? undefined : await testNumberCode(db, ws.id, destination.e164);
      const code = fixed ?? generateCode(body.code_length ?? 6);
      const codeLength = code.length;
      const now = clock.now();
      const row: repo.VerificationRow = {
        id: newId('ver'),
        workspace_id: ws.id,
        phone: destination.e164,
        country: destination.country,
        channel,
        status: 'pending',
        code_hash: '',
        code_length: codeLength,
        attempts: 0,
        max_attempts: body.max_attempts ?? 5,
        brand_name: brandName,
        metadata,
        expires_at: now + (body.ttl_seconds ?? 300) * 1000,
        verified_at: null,
        created_at: now,
        updated_at: now,
        delivery_ok: null,
        delivery_provider: null,
        provider_id: null,
        from_number: sender.number,
        error_code: null,
        error_message: null,
        seq: 0,
        mode,
      };
      row.code_hash = hashCode(codeKeys[0], row.id, code);
      // A hand-over that is a write to this database is made in the send's transaction; any other is a job's.
      const local = dispatcher.localProviderFor(sender, mode);
      const job = local ? undefined : dispatcher.newJob(row, code, now);
      const plan: SendPlan = {
        ws,
        mode,
        live,
        emitting,
        row,
        code,
        country: destination.country,
        local,
        job,
        refusedSend,
      };
      // On PostgreSQL the sends of a turn share a transaction (send-batch.ts); one it leaves is judged alone.
      const batched = !emitting && batchesInTurn(db) ? await sendInTurn(db, plan) : 'alone';
      const { refused, handedOver } =
        batched === 'alone' ? await db.transaction().execute((tx) => steps.sendAlone(tx, plan)) : batched;
      if (refused) throw refused();

      let sent: repo.VerificationRow;
      if (handedOver) {
        deps.metrics.deliveryAttempt(channel, handedOver.inline.provider, handedOver.inline.result);
        sent = handedOver.inserted;
      } else {
        // The first hand-over, waited for a short while so the response can say whether it was made; past the
        // deadline it goes on in the background, and the dispatcher retries what fails transiently.
        const known = { row, senders: numbers, webhooks: emitting };
        const settledFirst =
          job && (await waitAtMost(dispatcher.firstAttempt(job, code, known), deliveryWaitMs));
        // The settled hand-over returns the row it wrote; only a send still retrying or past the deadline reads it.
        sent = settledFirst || (await requireVerification(ws.id, row.id, mode));
      }
      deps.metrics.send(channel, acceptedSendOutcome(sent), sent.delivery_provider ?? 'none');
      return presentVerification(sent);
    },

    async check(principal: Principal, body: CheckBody): Promise<CheckResult> {
      if ((body.verification_id === undefined) === (body.phone === undefined)) {
        throw new AppError('invalid_request', 'Give exactly one of `verification_id` and `phone`.', {
          errors: [{ field: 'verification_id', message: 'give exactly one of verification_id and phone' }],
        });
      }
      const code = body.code.replace(/\D/g, '');
      if (code.length === 0) throw invalidField('code', 'must contain digits');

      const { mode } = principal;
      const live = mode === 'live';
      let row =
        body.verification_id !== undefined
          ? await requireVerification(principal.workspaceId, body.verification_id, mode)
          : await requireForPhone(principal.workspaceId, body.phone ?? '', body.country, mode);

      const emitting = emitsFor(principal);
      row = await settled(row, emitting);
      const ws = principal.workspace;
      if (row.status === 'pending') {
        const input: AttemptInput = {
          row,
          // Compared in constant time whatever the ceiling says: a refusal tells nothing of the code.
          correct: codeMatches(codeKeys, row.id, code, row.code_hash),
          // The number's failed-guess ceiling is live only: a test suite's wrong codes never lock a real number.
          ceiling: live ? ws : undefined,
        };
        const { now, ceilingAt, spent } =
          !emitting && batchesInTurn(db) ? await judgeInTurn(db, input) : await judgeAlone(input, emitting);
        if (ceilingAt !== null) throw ceilingRefusal(ws, ceilingAt, now);
        if (spent) return presentCheck(spent);
        // No row: a concurrent check, cancel or send finished it first, or its time ran out; report what it is now.
        row = await settled(await requireVerification(row.workspace_id, row.id, mode), emitting);
      }
      // Nothing is judged against a finished verification, yet every check of a number past its ceiling is refused.
      if (live) await enforceGuessCeiling(db, ws, row.phone, clock.now());
      return presentCheck(row);
    },

    async get(principal: Principal, id: string): Promise<Verification> {
      return presentVerification(
        await settled(
          await requireVerification(principal.workspaceId, id, principal.mode),
          emitsFor(principal),
        ),
      );
    },

    /** A number's pending verification, else its newest, as a read (the Twilio API fetches by `To`). */
    async getForPhone(principal: Principal, phone: string): Promise<Verification> {
      return presentVerification(
        await settled(
          await requireForPhone(principal.workspaceId, phone, undefined, principal.mode),
          emitsFor(principal),
        ),
      );
    },

    /** The id of the workspace's verification whose id begins `ver_` + `prefix` (a Twilio VE SID's 21 characters). */
    async idWithPrefix(principal: Principal, prefix: string): Promise<string> {
      const id = await repo.findIdByPrefix(db, principal.workspaceId, prefix, principal.mode);
      if (id === undefined) throw new AppError('not_found', 'No such verification.');
      return id;
    },

    async cancel(principal: Principal, id: string): Promise<Verification> {
      const emitting = emitsFor(principal);
      const row = await settled(
        await requireVerification(principal.workspaceId, id, principal.mode),
        emitting,
      );
      const cancel = async (): Promise<boolean> => {
        if (!emitting) return repo.cancelPending(db, row.id, clock.now());
        // The cancel and its event commit together.
        return db.transaction().execute(async (tx) => {
          const after = await repo.cancelPendingRow(tx, row.id, clock.now());
          if (after) await emit(tx, 'verification.canceled', after);
          return after !== undefined;
        });
      };
      if (row.status === 'pending' && (await cancel())) {
        await timeline.recordAfter([
          {
            verificationId: row.id,
            workspaceId: row.workspace_id,
            kind: 'canceled',
            detail: { by: 'api', key_name: principal.keyName },
          },
        ]);
      }
      return presentVerification(
        await settled(await requireVerification(principal.workspaceId, id, principal.mode), emitting),
      );
    },

    /**
     * The sweeper's part: persists expiry of every due verification, with the webhook events of those whose
     * workspace has endpoints in the same transaction (so `verification.expired` goes out even if nobody reads it).
     * In batches of `batch` (repository.ts EXPIRY_BATCH), each its own transaction, with a turn of the event loop
     * between them: a burst of codes coming due never holds the serving connection for more than one batch.
     */
    async expireDue(batch: number = repo.EXPIRY_BATCH): Promise<number> {
      let total = 0;
      for (;;) {
        const expired = await db.transaction().execute(async (tx) => {
          const rows = (await repo.expireDueBatch(tx, { now: clock.now(), limit: batch })).rows;
          const emitting = await workspacesWithEndpoints(
            tx,
            rows.map((r) => r.workspace_id),
          );
          for (const row of rows)
            if (emitting.has(row.workspace_id)) await emit(tx, 'verification.expired', row);
          return rows;
        });
        await timeline.recordAfter(expired.map((row) => expiredEvent(row)));
        total += expired.length;
        if (expired.length < batch) return total;
        await nextTurn();
      }
    },

    /** The dashboard's view of one verification of the workspace (expiry settled as at every read). */
    async inspect(workspaceId: string, id: string): Promise<VerificationRecord> {
      // The dashboard reads either mode (its detail page says which).
      const found = await repo.findVerificationEitherMode(db, workspaceId, id);
      if (!found) throw notFound(id);
      const { code_hash: _, ...verification } = await settled(found);
      return { verification, events: await listEvents(db, workspaceId, id) };
    },
  };
  // Refused sends and every check's answer are counted as they settle (accepted sends where they are made).
  return {
    ...service,
    send: (principal: Principal, body: SendBody) =>
      countRefusedSend(deps.metrics, body.channel ?? 'voice', service.send(principal, body)),
    check: (principal: Principal, body: CheckBody) =>
      countCheck(deps.metrics, service.check(principal, body)),
  };
}

export type VerificationService = ReturnType<typeof createVerificationService>;
