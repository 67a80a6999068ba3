// The pumping guard on the send path (docs/api.md "Pumping guard"): more than `range_limit` distinct numbers of one
// range (all but the last 3 digits alike) sent to within the window block the range for `block_seconds`; sends to a
// blocked range, or to a country the conversion signal blocked, are refused with 403 destination_blocked (reason,
// retry_after). The verification service calls `guardSend` inside the send's transaction; the sweeper calls
// `judgeConversion` about once a minute and `prune` with retention.
import { type Clock, toTimestamp as iso } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { createConversionJudge, type Judged } from './conversion.js';
import * as repo from './repository.js';
import { type BlockReason, FRAUD_RANGES, rangeOf } from './rules.js';

/** Why a send was refused, and until when. */
export interface Refusal {
  range: string;
  /** Set when the block is the country's (the conversion signal per country), not the range's. */
  country?: string;
  reason: BlockReason;
  until: number;
  /** The block that refused the send. */
  blockId: string;
}

/** What each reason tells the caller of a refused send. */
const REFUSAL_TEXT: Record<BlockReason, string> = {
  range_velocity: 'too many numbers of the range were sent codes in a short time',
  low_conversion: 'too few of the codes recently sent to the range were verified',
};

/** The answer to a refused send. Retry-After is the seconds until the block ends (at least 1). */
export function refusalError(refusal: Refusal, now: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((refusal.until - now) / 1000));
  const extras = { reason: refusal.reason, retry_after: retryAfter };
  if (refusal.country !== undefined) {
    return new AppError(
      'destination_blocked',
      `Codes to numbers of ${refusal.country} are blocked until ${iso(refusal.until)}: too few of the codes recently sent to the country were verified.`,
      extras,
    );
  }
  return new AppError(
    'destination_blocked',
    `Codes to numbers starting ${refusal.range} are blocked until ${iso(refusal.until)}: ${REFUSAL_TEXT[refusal.reason] ?? 'the pumping guard blocked the range'}.`,
    extras,
  );
}

/** What a send's range state asks of it: nothing (an allow-list entry covers it), its refusal, or a count. */
type Screened =
  | { kind: 'allowed' }
  | { kind: 'blocked'; refusal: Refusal }
  | { kind: 'count'; range: string; since: number; limit: number };

/** The guard's rule before any count: an allowed number passes; a block in force (the range's, then the country's) refuses. */
function screenSend(phone: string, state: repo.RangeState, now: number): Screened {
  const range = rangeOf(phone);
  if (state.allowed) return { kind: 'allowed' };
  if (state.blockedUntil !== null && state.blockedUntil > now && state.blockId !== null) {
    const reason = (state.blockReason ?? 'range_velocity') as BlockReason;
    return { kind: 'blocked', refusal: { range, reason, until: state.blockedUntil, blockId: state.blockId } };
  }
  // The country's block (read by the same statement): its sends are refused like a range's.
  if (state.countryBlockedUntil !== null && state.countryBlockedUntil > now && state.countryBlockId) {
    const refusal: Refusal = {
      range,
      country: state.country,
      reason: (state.countryBlockReason ?? 'low_conversion') as BlockReason,
      until: state.countryBlockedUntil,
      blockId: state.countryBlockId,
    };
    return { kind: 'blocked', refusal };
  }
  return { kind: 'count', range, since: now - state.windowSeconds * 1000, limit: state.rangeLimit };
}

export function createFraudGuard(deps: {
  db: Db;
  /** Where the conversion signal's heavy reads run: on SQLite the reader thread, never the serving one. */
  reader: Db;
  clock: Clock;
  /** How long the history of blocks is kept (RETENTION_DAYS, like the verifications they refused). */
  retentionDays: number;
  /** The longest a code can stay pending (the API's largest ttl_seconds): what a judgement may leave unjudged. */
  maxCodeLifetimeMs: number;
}) {
  const { db, clock } = deps;
  const judge = createConversionJudge(deps);
  return {
    /** Deletes what the guard no longer reads (the sweeper calls it with retention). */
    async prune(): Promise<{ numbers: number; ranges: number; blocks: number }> {
      const now = clock.now();
      return repo.pruneBefore(db, {
        windowsBefore: now - FRAUD_RANGES.range_window_seconds.max * 1000,
        blocksBefore: now - deps.retentionDays * 86_400_000,
        now,
      });
    },

    /**
     * The pumping guard's lock of a send's range, in the send's transaction (`tx`), after the number's lock. Resolves
     * once taken (on PostgreSQL sent ahead: the statement after it goes in the same round trip), with the read of
     * the range's state for `guardSend`.
     */
    takeRange(
      tx: Db,
      workspaceId: string,
      phone: string,
      country: string,
      now: number,
    ): Promise<() => Promise<repo.RangeState>> {
      return repo.lockRange(tx, { workspaceId, range: rangeOf(phone), phone, country, now });
    },

    /**
     * The guard of one send, in the send's transaction (`tx`), with its range taken (`takeRange`). Returns the
     * refusal when the range or the number's country is blocked, or this send trips the rule (the block is then
     * written in the same transaction, which the caller commits without creating the verification); undefined when
     * the send may go on (its number is then recorded, and rolls back with the send if a later check refuses it).
     * Cost: two indexed statements (one on PostgreSQL) after the range's lock.
     */
    async guardSend(
      tx: Db,
      workspaceId: string,
      phone: string,
      state: repo.RangeState,
      now: number,
    ): Promise<Refusal | undefined> {
      const screened = screenSend(phone, state, now);
      if (screened.kind === 'allowed') return undefined;
      if (screened.kind === 'blocked') {
        await repo.countRefusal(tx, { blockId: screened.refusal.blockId });
        return screened.refusal;
      }
      const { range, since, limit } = screened;
      const others = await repo.countAndRecord(tx, { workspaceId, range, phone, since, now, limit });
      if (others < limit) return undefined;
      // This number would be one past the limit: it trips the block and is itself refused.
      const until = now + state.blockSeconds * 1000;
      const blockId = newId('blk');
      const reason: BlockReason = 'range_velocity';
      await repo.insertBlock(tx, {
        id: blockId,
        workspace_id: workspaceId,
        range_prefix: range,
        reason,
        distinct_numbers: others + 1,
        verified: null,
        created_at: now,
        blocked_until: until,
        lifted_at: null,
        lifted_by: null,
        refused: 1,
      });
      await repo.setRangeBlock(tx, { workspaceId, range, until, blockId, reason });
      return { range, reason, until, blockId };
    },

    /**
     * The guard of a send judged with others in one transaction (verification/send-batch.ts; PostgreSQL), with its
     * range taken: the rule of `guardSend`, but a send it would refuse writes nothing here (no block, no refusal
     * counted): the caller leaves that send to `guardSend`, alone, after its batch commits. The count and the record
     * are sent ahead (the next send's follow in the same round trip); resolves with the read of whether it passed,
     * its number then recorded.
     */
    async passAhead(
      tx: Db,
      workspaceId: string,
      phone: string,
      state: repo.RangeState,
      now: number,
    ): Promise<() => Promise<boolean>> {
      const screened = screenSend(phone, state, now);
      if (screened.kind !== 'count') return async () => screened.kind === 'allowed';
      const { range, since, limit } = screened;
      const counted = await repo.countAndRecordAhead(tx, { workspaceId, range, phone, since, now, limit });
      return async () => (await counted()) < limit;
    },

    /**
     * The conversion signal (the sweeper, about once a minute): blocks every range, and every country, whose last N
     * finished sends in the last day, all created after its last block, were less than the workspace's percent
     * verified. One read per kind (conversion-repository.ts), then per range or country one transaction that takes
     * its row's lock and re-checks that no block is in force or ended after the evidence began: two processes
     * judging at once write one block. After a process's first, only the keys whose evidence may have changed
     * (conversion.ts `createConversionJudge`). Returns the ranges and countries it blocked.
     */
    async judgeConversion(): Promise<Judged[]> {
      return judge(clock.now());
    },
  };
}

export type FraudGuard = ReturnType<typeof createFraudGuard>;
