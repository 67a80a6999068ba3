// The conversion signal's judgement (docs/api.md "The conversion signal"): one read of the last day's finished codes
// per range, then, for each range whose share of verified codes is low, one transaction that takes the range's lock
// as a send does, re-checks, and writes the block. The fraud service runs it for the sweeper.
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import * as conversion from './conversion-repository.js';
import * as repo from './repository.js';
import { type BlockReason, CONVERSION_LOOKBACK_MS, FRAUD_DEFAULTS, isLowConversion } from './rules.js';

/** Blocks the ranges of low conversion at `now`; returns those it blocked. */
export async function judgeConversion(
  db: Db,
  now: number,
): Promise<{ workspaceId: string; range: string }[]> {
  const found = await conversion.findConversions(db, { since: now - CONVERSION_LOOKBACK_MS });
  const blocked: { workspaceId: string; range: string }[] = [];
  for (const c of found) {
    if (!isLowConversion(c.judged, c.verified, c.sends, c.percent)) continue;
    const { workspaceId, range } = c;
    // With the range locked, the read's view is checked again: another process may have blocked (or a person
    // lifted) the range since, and then this evidence is stale. Two judges at once write one block.
    const wrote = await db.transaction().execute(async (tx) => {
      const state = await conversion.lockRangeForJudgement(tx, { workspaceId, range, now });
      if (state.blockedUntil !== null && state.blockedUntil > now) return false;
      if (await conversion.blockEndedAfter(tx, { workspaceId, range, since: c.oldest })) return false;
      const settings = await repo.findSettings(tx, workspaceId);
      const until = now + (settings?.block_seconds ?? FRAUD_DEFAULTS.block_seconds) * 1000;
      const blockId = newId('blk');
      const reason: BlockReason = 'low_conversion';
      await repo.insertBlock(tx, {
        id: blockId,
        workspace_id: workspaceId,
        range_prefix: range,
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
      await repo.setRangeBlock(tx, { workspaceId, range, until, blockId, reason });
      return true;
    });
    if (wrote) blocked.push({ workspaceId, range });
  }
  return blocked;
}
