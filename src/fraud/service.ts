// The pumping guard (issue 12): bots request codes to ranges of premium or colluding numbers and the customer
// pays. More than `range_limit` distinct numbers of one range (all but the last 3 digits alike) sent to within the
// window block the range for `block_seconds`; sends to a blocked range are refused with 403 destination_blocked
// (reason range_velocity, retry_after). Off the send path, the sweeper calls `judgeConversion` about once a minute:
// a range whose last `conversion_sends` finished codes were less than `conversion_percent` verified (codes never
// checked are pumping's signature) is blocked the same way (reason low_conversion). The verification service calls
// `guardSend` inside the send's transaction; the CLI and the dashboard call the rest.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { type Judged, judgeConversion } from './conversion.js';
import * as repo from './repository.js';
import {
  type BlockReason,
  FRAUD_DEFAULTS,
  FRAUD_RANGES,
  type FraudLimits,
  type FraudSettingName,
  isCountryKey,
  MAX_ALLOW_ENTRIES,
  rangeOf,
  validateCountry,
  validatePrefix,
  validateRange,
  validateSetting,
} from './rules.js';

const SETTING_NAMES = Object.keys(FRAUD_DEFAULTS) as FraudSettingName[];

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

export interface FraudSettingsView extends FraudLimits {
  workspace_id: string;
  /** Numbers and ranges (E.164 prefixes) never blocked. */
  allow: string[];
}

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

const iso = (ms: number) => new Date(ms).toISOString();

/** What each reason tells the caller of a refused send. */
const REFUSAL_TEXT: Record<BlockReason, string> = {
  range_velocity: 'too many numbers of the range were sent codes in a short time',
  low_conversion: 'too few of the codes recently sent to the range were verified',
};

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

export function createFraudService(deps: {
  db: Db;
  /** Writes the audit trail's entry of each change, in the change's transaction. */
  audit: AuditRecorder;
  clock: Clock;
  workspaces: WorkspaceService;
  /** How long the history of blocks is kept (RETENTION_DAYS, like the verifications they refused). */
  retentionDays: number;
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

  async function settingsOf(workspaceId: string): Promise<FraudSettingsView> {
    await workspaces.requireWorkspace(workspaceId);
    const row = await repo.findSettings(db, workspaceId);
    const allow = (await repo.listAllow(db, workspaceId)).map((r) => r.prefix);
    const limits = Object.fromEntries(SETTING_NAMES.map((n) => [n, row?.[n] ?? FRAUD_DEFAULTS[n]]));
    return { workspace_id: workspaceId, ...(limits as FraudLimits), allow };
  }

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
     * The guard of one send, in the send's transaction (`tx`), after the number's lock. Returns the refusal when the
     * range is blocked or this send trips the rule (the block is then written in the same transaction, which the
     * caller commits without creating the verification); undefined when the send may go on (its number is then
     * recorded, and rolls back with the send if a later check refuses it). Cost: three indexed statements.
     */
    async guardSend(
      tx: Db,
      workspaceId: string,
      phone: string,
      country: string,
      now: number,
    ): Promise<Refusal | undefined> {
      const range = rangeOf(phone);
      const state = await repo.lockRange(tx, { workspaceId, range, phone, country, now });
      if (state.allowed) return undefined;
      if (state.blockedUntil !== null && state.blockedUntil > now && state.blockId !== null) {
        await repo.countRefusal(tx, { blockId: state.blockId });
        return {
          range,
          reason: (state.blockReason ?? 'range_velocity') as BlockReason,
          until: state.blockedUntil,
          blockId: state.blockId,
        };
      }
      // The country's block (read by the same statement): its sends are refused like a range's.
      if (state.countryBlockedUntil !== null && state.countryBlockedUntil > now && state.countryBlockId) {
        await repo.countRefusal(tx, { blockId: state.countryBlockId });
        return {
          range,
          country,
          reason: (state.countryBlockReason ?? 'low_conversion') as BlockReason,
          until: state.countryBlockedUntil,
          blockId: state.countryBlockId,
        };
      }
      const since = now - state.windowSeconds * 1000;
      const others = await repo.countOtherNumbers(tx, { workspaceId, range, phone, since });
      if (others < state.rangeLimit) {
        await repo.recordNumber(tx, { workspaceId, range, phone, now });
        return undefined;
      }
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
     * The conversion signal (the sweeper, about once a minute): blocks every range whose last N finished sends in
     * the last day, all created after its last block, were less than the workspace's percent verified. One read
     * (conversion-repository.ts), then per range one transaction that takes the range's lock as a send does and
     * re-checks that no block is in force or ended after the evidence began: two processes judging at once write
     * one block. Returns the ranges it blocked.
     */
    async judgeConversion(): Promise<Judged[]> {
      return judgeConversion(db, clock.now());
    },

    getSettings: settingsOf,

    /** Sets the settings given; the others keep their values. */
    async setSettings(
      workspaceId: string,
      given: Partial<Record<FraudSettingName, unknown>>,
      by: Actor,
    ): Promise<FraudSettingsView> {
      const current = await settingsOf(workspaceId);
      const next = { ...current };
      for (const name of SETTING_NAMES) {
        if (given[name] !== undefined) next[name] = validateSetting(name, given[name]);
      }
      const changed = SETTING_NAMES.filter((n) => current[n] !== next[n]);
      // Saved as they were: nothing changes, nothing is recorded.
      if (changed.length === 0) return next;
      await db.transaction().execute(async (tx) => {
        const limits = Object.fromEntries(SETTING_NAMES.map((n) => [n, next[n]])) as FraudLimits;
        await repo.saveSettings(tx, { workspace_id: workspaceId, ...limits, updated_at: clock.now() });
        await audit.record(tx, by, {
          workspaceId,
          action: 'fraud.settings_changed',
          target: workspaceId,
          details: {
            from: Object.fromEntries(changed.map((n) => [n, current[n]])),
            to: Object.fromEntries(changed.map((n) => [n, next[n]])),
          },
        });
      });
      return next;
    },

    /** Adds a number or range to the allow list (idempotent). */
    async allow(workspaceId: string, input: unknown, by: Actor): Promise<FraudSettingsView> {
      const prefix = validatePrefix(input);
      const current = await settingsOf(workspaceId);
      if (current.allow.includes(prefix)) return current;
      // A soft cap (two concurrent adds may both pass it): it only keeps the send's allow check short.
      if ((await repo.countAllow(db, workspaceId)) >= MAX_ALLOW_ENTRIES) {
        throw new AppError('conflict', `The allow list holds at most ${MAX_ALLOW_ENTRIES} entries.`);
      }
      await db.transaction().execute(async (tx) => {
        await repo.addAllow(tx, { workspaceId, prefix, now: clock.now() });
        await audit.record(tx, by, {
          workspaceId,
          action: 'fraud.allow_added',
          target: null,
          details: { prefix },
        });
      });
      return settingsOf(workspaceId);
    },

    /** Removes an entry from the allow list; not_found when it is not listed. */
    async disallow(workspaceId: string, input: unknown, by: Actor): Promise<FraudSettingsView> {
      const prefix = validatePrefix(input);
      await workspaces.requireWorkspace(workspaceId);
      await db.transaction().execute(async (tx) => {
        if (!(await repo.removeAllow(tx, workspaceId, prefix))) {
          throw new AppError('not_found', `${prefix} is not on the allow list.`);
        }
        await audit.record(tx, by, {
          workspaceId,
          action: 'fraud.allow_removed',
          target: null,
          details: { prefix },
        });
      });
      return settingsOf(workspaceId);
    },

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

export type FraudService = ReturnType<typeof createFraudService>;
