// The conversion signal's judgement (docs/api.md "The conversion signal"): one read of the last day's finished codes
// per range and one per country, then, for each range or country whose share of verified codes is low, one
// transaction that takes its row's lock as a send takes a range's, re-checks, and writes the block. The fraud
// service runs it for the sweeper. The two reads go to the store's reader (on SQLite a thread of its own): with
// 225,000 codes in the last day they took about two seconds, which on the serving thread every API request waited
// for, once a minute. A reader's view may be a moment older than the serving connection's; the block's transaction
// re-checks under the lock, as it does for another process's judgement.
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { finalBefore } from '../store/watermarks.js';
import * as conversion from './conversion-repository.js';
import * as repo from './repository.js';
import { type BlockReason, CONVERSION_LOOKBACK_MS, FRAUD_DEFAULTS, isLowConversion } from './rules.js';

/** What the judgement blocked: a range or a country of a workspace. */
export type Judged = { workspaceId: string; range: string } | { workspaceId: string; country: string };

interface Evidence {
  workspaceId: string;
  /** The block's key: the range, or the country's two letters. */
  key: string;
  judged: number;
  verified: number;
  oldest: number;
}

/**
 * A country with N finished sends or more in this last slice (the usual case: a country gathers a workspace's sends)
 * has its last N among them, and its older sends of the day are not ranked (conversion-repository.ts `denseFrom`).
 * Not for ranges: one seldom has N in an hour, and looking costs more than it saves (docs/benchmarks.md).
 */
export const DENSE_SLICE_MS = 60 * 60_000;

/** How often a process judges every key, whatever changed: for what no rule of `createConversionJudge` foresaw. */
export const FULL_JUDGEMENT_EVERY_MS = 15 * 60_000;

/**
 * The judgement of one process (its sweeper's), which after its first judges only the keys whose evidence may have
 * changed: a key's last N finished sends change only when one of its sends finishes (a send ageing out of the day
 * leaves its key with fewer than N, or the same N; a block's end or lift counts only sends created after it). Every
 * send that finished since the last judgement was pending, or not yet visible, when that judgement began, so it was
 * created after that judgement's finality horizon (`finalBefore`): only the keys of the finished sends created
 * since then are judged. The settings and allow lists can change a verdict without a send: when their mark changed,
 * and every FULL_JUDGEMENT_EVERY_MS, every key is judged. Another process's judgement changes nothing here: the
 * block's transaction re-checks under the key's lock.
 */
export function createConversionJudge(deps: { db: Db; reader: Db; maxCodeLifetimeMs: number }) {
  let last: { horizon: number; mark: string; fullUntil: number } | undefined;
  return async (now: number): Promise<Judged[]> => {
    const horizon = await finalBefore(deps.reader, now, deps.maxCodeLifetimeMs);
    const mark = await conversion.judgementMark(deps.reader);
    const full = last === undefined || last.mark !== mark || now >= last.fullUntil;
    const blocked = await judgeConversion(deps.db, deps.reader, now, full ? undefined : last?.horizon);
    // Only once it succeeded: a judgement that failed is made again, over the same keys, the next time.
    last = { horizon, mark, fullUntil: full || !last ? now + FULL_JUDGEMENT_EVERY_MS : last.fullUntil };
    return blocked;
  };
}

/**
 * Blocks the ranges and countries of low conversion at `now`, judged from what `reader` reads and written through
 * `db`; returns those it blocked. With `changedFrom`, judges only the keys of the finished sends created since then.
 */
export async function judgeConversion(
  db: Db,
  reader: Db,
  now: number,
  changedFrom?: number,
): Promise<Judged[]> {
  const span = { since: now - CONVERSION_LOOKBACK_MS, changedFrom };
  const blocked: Judged[] = [];
  for (const c of await conversion.findConversions(reader, span)) {
    if (!isLowConversion(c.judged, c.verified, c.sends, c.percent)) continue;
    if (await block(db, now, { ...c, key: c.range }))
      blocked.push({ workspaceId: c.workspaceId, range: c.range });
  }
  for (const c of await conversion.findCountryConversions(reader, {
    ...span,
    denseFrom: now - DENSE_SLICE_MS,
  })) {
    if (!isLowConversion(c.judged, c.verified, c.sends, c.percent)) continue;
    if (await block(db, now, { ...c, key: c.country })) {
      blocked.push({ workspaceId: c.workspaceId, country: c.country });
    }
  }
  return blocked;
}

/** Writes the block of `c.key` unless the evidence went stale; whether it wrote one. */
function block(db: Db, now: number, c: Evidence): Promise<boolean> {
  const { workspaceId, key } = c;
  // With the row locked, the read's view is checked again: another process may have blocked (or a person lifted)
  // it since, and then this evidence is stale. Two judges at once write one block.
  return db.transaction().execute(async (tx) => {
    const state = await conversion.lockRangeForJudgement(tx, { workspaceId, range: key, now });
    if (state.blockedUntil !== null && state.blockedUntil > now) return false;
    if (await conversion.blockEndedAfter(tx, { workspaceId, range: key, since: c.oldest })) return false;
    const settings = await repo.findSettings(tx, workspaceId);
    const until = now + (settings?.block_seconds ?? FRAUD_DEFAULTS.block_seconds) * 1000;
    const blockId = newId('blk');
    const reason: BlockReason = 'low_conversion';
    await repo.insertBlock(tx, {
      id: blockId,
      workspace_id: workspaceId,
      range_prefix: key,
      reason,
      // The codes judged (N) and how many were verified: the block's label reads "3 of the last 50".
      distinct_numbers: c.judged,
      verified: c.verified,
      created_at: now,
      blocked_until: until,
      lifted_at: null,
      lifted_by: null,
      // No send tripped it: the count starts at the first refused send.
      refused: 0,
    });
    await repo.setRangeBlock(tx, { workspaceId, range: key, until, blockId, reason });
    return true;
  });
}
