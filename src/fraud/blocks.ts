// The pumping guard's blocks for the CLI and the dashboard: the list (active and past, with the sends each refused)
// and the lift by hand of a range's or a country's active block, recorded in the audit trail.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp as iso } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { WorkspaceService } from '../workspaces/service.js';
import * as repo from './repository.js';
import { isCountryKey, validateCountry, validateRange } from './rules.js';

export interface BlockView {
  id: string;
  /** The range: an E.164 number minus its last 3 digits; null for a country's block. */
  range: string | null;
  /** A country's block (low_conversion per country): its two letters; null for a range's. */
  country: string | null;
  reason: string;
  /** range_velocity: distinct numbers of the range in the window; low_conversion: the finished sends judged. */
  distinct_numbers: number;
  /** low_conversion: how many of the judged sends were verified; null otherwise. */
  verified: number | null;
  /** The reason in words, as the dashboard and the CLI show it. */
  why: string;
  created_at: string;
  blocked_until: string;
  lifted_at: string | null;
  lifted_by: string | null;
  /** Sends the block refused, the one that tripped it included. */
  refused: number;
  /** Still refusing sends: not lifted and not yet over. */
  active: boolean;
}

/** How many blocks the list shows (newest first). */
export const BLOCK_LIST_LIMIT = 100;

/** A block's reason in words (one place, for the dashboard and the CLI). */
export function describeBlock(b: {
  reason: string;
  range_prefix: string;
  distinct_numbers: number;
  verified: number | null;
}): string {
  if (b.reason === 'low_conversion') {
    const to = isCountryKey(b.range_prefix) ? ` to ${b.range_prefix}` : '';
    return `Low conversion: ${b.verified ?? 0} of the last ${b.distinct_numbers} codes${to} verified`;
  }
  if (b.reason === 'range_velocity') return `Velocity: ${b.distinct_numbers} numbers in the window`;
  return b.reason;
}

export function createFraudBlocks(deps: {
  db: Db;
  /** Writes the audit trail's entry of each lift, in the lift's transaction. */
  audit: AuditRecorder;
  clock: Clock;
  workspaces: WorkspaceService;
}) {
  const { db, clock, workspaces, audit } = deps;

  function presentBlock(row: repo.BlockRow, now: number): BlockView {
    const country = isCountryKey(row.range_prefix);
    return {
      id: row.id,
      range: country ? null : row.range_prefix,
      country: country ? row.range_prefix : null,
      reason: row.reason,
      distinct_numbers: row.distinct_numbers,
      verified: row.verified,
      why: describeBlock(row),
      created_at: iso(row.created_at),
      blocked_until: iso(row.blocked_until),
      lifted_at: row.lifted_at === null ? null : iso(row.lifted_at),
      lifted_by: row.lifted_by,
      refused: row.refused,
      active: row.lifted_at === null && row.blocked_until > now,
    };
  }

  /** Ends the active block of a range or a country (`key`), audited with `named`; the ids of the blocks it ended. */
  async function liftBlock(
    workspaceId: string,
    key: string,
    named: { range: string } | { country: string },
    by: Actor,
  ): Promise<string[]> {
    await workspaces.requireWorkspace(workspaceId);
    const now = clock.now();
    // Who lifted it, as the Fraud page shows it: the account's e-mail, or 'cli'.
    const liftedBy = by.kind === 'account' ? by.email : by.kind;
    return db.transaction().execute(async (tx) => {
      const ended = await repo.liftRange(tx, { workspaceId, range: key, now, by: liftedBy });
      if (ended.length === 0) throw new AppError('not_found', `No active block of ${key}.`);
      await audit.record(tx, by, {
        workspaceId,
        action: 'fraud.block_lifted',
        target: ended[0] ?? null,
        details: { ...named, blocks: ended },
      });
      return ended;
    });
  }

  return {
    /** The workspace's blocks, newest first (active and past). */
    async listBlocks(workspaceId: string): Promise<BlockView[]> {
      await workspaces.requireWorkspace(workspaceId);
      const now = clock.now();
      return (await repo.listBlocks(db, workspaceId, BLOCK_LIST_LIMIT)).map((r) => presentBlock(r, now));
    },

    /** Ends a range's active block by hand; not_found when the range has none. The range then starts afresh. */
    async lift(
      workspaceId: string,
      rangeInput: unknown,
      by: Actor,
    ): Promise<{ range: string; lifted: string[] }> {
      const range = validateRange(rangeInput);
      return { range, lifted: await liftBlock(workspaceId, range, { range }, by) };
    },

    /** Ends a country's active block by hand; not_found when it has none. Its evidence then starts afresh. */
    async liftCountry(
      workspaceId: string,
      countryInput: unknown,
      by: Actor,
    ): Promise<{ country: string; lifted: string[] }> {
      const country = validateCountry(countryInput);
      return { country, lifted: await liftBlock(workspaceId, country, { country }, by) };
    },
  };
}

export type FraudBlocks = ReturnType<typeof createFraudBlocks>;
