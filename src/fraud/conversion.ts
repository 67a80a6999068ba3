// The conversion signal's judgement (docs/api.md "The conversion signal"): one read of the last day's finished codes
// per range and one per country, then, for each range or country whose share of verified codes is low, one
// transaction that takes its row's lock as a send takes a range's, re-checks, and writes the block. The fraud
// service runs it for the sweeper. The two reads go to the store's reader (on SQLite a thread of its own): with
// 225,000 codes in the last day they took about two seconds, which on the serving thread every API request waited
// for, once a minute. A reader's view may be a moment older than the serving connection's; the block's transaction
// re-checks under the lock, as it does for another process's judgement.
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
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
 * Blocks the ranges and countries of low conversion at `now`, judged from what `reader` reads and written through
 * `db`; returns those it blocked.
 */
export async function judgeConversion(db: Db, reader: Db, now: number): Promise<Judged[]> {
  const since = now - CONVERSION_LOOKBACK_MS;
  const blocked: Judged[] = [];
  for (const c of await conversion.findConversions(reader, { since })) {
    if (!isLowConversion(c.judged, c.verified, c.sends, c.percent)) continue;
    if (await block(db, now, { ...c, key: c.range }))
      blocked.push({ workspaceId: c.workspaceId, range: c.range });
  }
  for (const c of await conversion.findCountryConversions(reader, { since })) {
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
