// A send's transaction (service.ts `send`): the number taken, then its range; the limits judged; the older code
// superseded and the new one's rows inserted, with its local hand-over. Alone it is a transaction of its own
// (`sendAlone`); on PostgreSQL the sends of one turn share one (send-batch.ts) through the same steps: `lockNumber`,
// `lockRange` and `writeSend`.
import type { Clock } from '../clock.js';
import type { NewJob } from '../delivery/dispatcher.js';
import { handOverIn, type InlineHandOver } from '../delivery/inline-hand-over.js';
import { insertJob } from '../delivery/jobs.js';
import type { LocalProvider } from '../delivery/provider.js';
import { AppError } from '../errors.js';
import { type FraudGuard, refusalError } from '../fraud/guard.js';
import type { RangeState } from '../fraud/repository.js';
import type { PrincipalWorkspace } from '../keys/service.js';
import { ceilingInputs, ceilingRefusal } from '../limits/guess-ceiling.js';
import type { Db } from '../store/database.js';
import { holdInserts } from '../store/prepared.js';
import type { Timeline } from '../timeline/timeline.js';
import type { Mode } from '../vocabulary/modes.js';
import type { EmitEvent } from '../webhooks/emit.js';
import { type NumberState, takeNumber } from './number-state.js';
import { type RefusedSend, recordRefusedSend } from './refused-sends.js';
import * as repo from './repository.js';
import { supersedeOlder } from './supersede.js';

/** A send as its request made it, ready for its transaction. */
export interface SendPlan {
  ws: PrincipalWorkspace;
  mode: Mode;
  live: boolean;
  /** The workspace has webhook endpoints: the send's events commit with it. */
  emitting: boolean;
  /** The new verification as it will be inserted (its `seq` is set in the transaction), and its code. */
  row: repo.VerificationRow;
  code: string;
  /** The number's country (the row's, never null here): the pumping guard reads its block. */
  country: string;
  /** The local provider that hands the code over in the transaction, or else the job that will. */
  local: LocalProvider | undefined;
  job: NewJob | undefined;
  /** The row a refusal of this send leaves in the log. */
  refusedSend: (reason: RefusedSend['reason'], blockId: string | null) => RefusedSend;
}

/** What a send's transaction came to: its refusal, or the local hand-over it made (and the row it inserted). */
export interface SendOutcome {
  refused?: () => AppError;
  handedOver?: { inline: InlineHandOver; inserted: repo.VerificationRow };
}

export interface SendDeps {
  clock: Clock;
  timeline: Timeline;
  fraud: Pick<FraudGuard, 'takeRange' | 'guardSend' | 'passAhead'>;
  emit: EmitEvent;
}

/** The 429 of a number whose send window the send at `fullAt` fills (until that send leaves the window). */
function sendLimitRefusal(
  ws: { send_limit: number; send_window_seconds: number },
  fullAt: number,
  now: number,
): AppError {
  const retryAfter = Math.max(1, Math.ceil((fullAt + ws.send_window_seconds * 1000 - now) / 1000));
  return new AppError(
    'rate_limited',
    `At most ${ws.send_limit} codes may be sent to one number in ${ws.send_window_seconds / 60} minutes.`,
    { retry_after: retryAfter },
  );
}

export function createSendSteps(deps: SendDeps) {
  const { clock, timeline, fraud, emit } = deps;

  /**
   * The number's lock, first (number-state.ts `takeNumber`): after any set of concurrent sends exactly one
   * verification of the number is pending, and the send limit counts every one of them. Resolves with its read.
   */
  function lockNumber(tx: Db, { ws, row, mode }: SendPlan): Promise<() => Promise<NumberState>> {
    const now = row.created_at;
    return takeNumber(tx, {
      workspaceId: ws.id,
      phone: row.phone,
      now,
      mode,
      windowSince: now - ws.send_window_seconds * 1000,
      windowOffset: ws.send_limit - 1,
      ceiling: ceilingInputs(ws, row.phone, now),
    });
  }

  /**
   * The pumping guard's range, after the number (on PostgreSQL sent ahead, one round trip with it). Test sends cost
   * nothing and reach no carrier: they neither count in a range nor meet its block (undefined).
   */
  function lockRange(
    tx: Db,
    { ws, row, live, country }: SendPlan,
  ): Promise<() => Promise<RangeState>> | undefined {
    return live ? fraud.takeRange(tx, ws.id, row.phone, country, row.created_at) : undefined;
  }

  /**
   * The send's writes once nothing refuses it, the number's ordinal `seq` given: the supersede and the inserts. On
   * PostgreSQL the supersede (where no webhook event needs its rows) and the inserts are sent ahead (supersede.ts,
   * store/prepared.ts `holdInserts`): they go with the commit, one round trip.
   */
  async function writeSend(tx: Db, plan: SendPlan, seq: number): Promise<SendOutcome['handedOver']> {
    const { ws, row, mode, emitting, local, job, code } = plan;
    row.seq = seq;
    // Supersede cancels the older code (or records its expiry, where its time had run out).
    const superseded = await supersedeOlder(tx, timeline, {
      workspaceId: ws.id,
      phone: row.phone,
      now: row.created_at,
      mode,
      newerId: row.id,
      rowsWanted: emitting,
    });
    return holdInserts(tx, async () => {
      const inline = local && (await handOverIn(tx, local, row, code));
      const inserted = inline ? { ...row, ...inline.columns } : row;
      await repo.insertVerification(tx, inserted);
      // With the verification, or not at all: a committed code always has its delivery job, or its hand-over.
      if (job) await insertJob(tx, job.row);
      if (emitting) {
        for (const old of superseded.rows) {
          await emit(tx, old.status === 'expired' ? 'verification.expired' : 'verification.canceled', old);
        }
        await emit(tx, 'verification.created', row);
        if (inline) await emit(tx, inline.webhook, inserted);
      }
      // In the send's transaction: the timeline holds exactly the sends and supersedes that committed.
      await timeline.record(tx, [
        ...superseded.events,
        {
          verificationId: row.id,
          workspaceId: ws.id,
          kind: 'created',
          detail: { channel: row.channel, from: row.from_number, to: row.phone },
        },
        ...(inline ? [inline.event] : []),
      ]);
      return inline ? { inline, inserted } : undefined;
    });
  }

  /**
   * A send in a transaction of its own (`tx`): limits, supersede and inserts under the number's lock. What a
   * refusal commits (its refused-send row, a block's count) commits; nothing of the send does.
   */
  async function sendAlone(tx: Db, plan: SendPlan): Promise<SendOutcome> {
    const { ws, row, live } = plan;
    const now = row.created_at;
    const readNumber = await lockNumber(tx, plan);
    const readRange = await lockRange(tx, plan);
    const number = await readNumber();
    // A number past its failed-guess ceiling gets no new code either: a code could not be checked. Test codes
    // reach nobody, so the ceiling (a live defence against guessing) neither counts nor holds them.
    const ceilingAt = number.ceilingAt;
    if (live && ceilingAt !== null) {
      await recordRefusedSend(tx, plan.refusedSend('guess_ceiling', null));
      return { refused: () => ceilingRefusal(ws, ceilingAt, now) };
    }
    // The pumping guard: a refusal commits its block (and its count) but nothing of the send.
    const blocked = readRange && (await fraud.guardSend(tx, ws.id, row.phone, await readRange(), now));
    if (blocked) {
      await recordRefusedSend(tx, { ...plan.refusedSend(blocked.reason, blocked.blockId), at: now });
      // Counted from when the refusal was decided: this send's `now` was read before it waited for the range's
      // lock, and another process may have written the block since (Retry-After never exceeds its length).
      return { refused: () => refusalError(blocked, clock.now()) };
    }
    // Thrown: the send limit's refusal rolls back the guard's count of this send, as if it had never come.
    if (number.windowFullAt !== null) throw sendLimitRefusal(ws, number.windowFullAt, now);
    return { handedOver: await writeSend(tx, plan, number.seq) };
  }

  return { lockNumber, lockRange, writeSend, sendAlone };
}

export type SendSteps = ReturnType<typeof createSendSteps>;
