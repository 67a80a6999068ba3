// SQL of the pumping guard's conversion signal (docs/api.md "Pumping guard"), per range and per country. Off the
// send path: the sweeper's judgement reads a day of finished sends at most once a minute (once for ranges, once for
// countries), then writes each block in a transaction of its own with the range's (or the country's) row locked.
// Functions take the database (or a transaction) first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { FRAUD_DEFAULTS, RANGE_SUFFIX_DIGITS } from './rules.js';

/** A range's last N finished sends, counted. */
export interface RangeConversion {
  workspaceId: string;
  range: string;
  /** The workspace's settings (N and the percent). */
  sends: number;
  percent: number;
  judged: number;
  verified: number;
  /** When the oldest judged send was created: a block that ended after it makes the evidence stale. */
  oldest: number;
}

/**
 * Every (workspace, range) with at least N finished sends (status other than pending) created since `since` and
 * after the range's last block ended or was lifted (a block in force ends in the future, so its range has none),
 * counted over its last N, for workspaces whose signal is on and ranges no allow-list entry covers. One statement:
 * the created_at index bounds it to a day; ROW_NUMBER keeps the last N of each range (SQLite and PostgreSQL alike).
 * Whether the share is low is the caller's (rules.ts isLowConversion).
 */
export async function findConversions(db: Db, p: { since: number }): Promise<RangeConversion[]> {
  const { rows } = await sql<{
    workspace_id: string;
    range_prefix: string;
    sends: number;
    percent: number;
    judged: number;
    verified: number;
    oldest: number;
  }>`
    WITH finished AS (
      SELECT v.id, v.workspace_id, v.status, v.created_at,
        substr(v.phone, 1, length(v.phone) - ${RANGE_SUFFIX_DIGITS}) AS range_prefix,
        coalesce(s.conversion_sends, ${FRAUD_DEFAULTS.conversion_sends}) AS sends,
        coalesce(s.conversion_percent, ${FRAUD_DEFAULTS.conversion_percent}) AS percent
      FROM verifications v
      LEFT JOIN fraud_settings s ON s.workspace_id = v.workspace_id
      -- Live sends only: a test key's codes reach nobody, so they say nothing of a range (docs/api.md, "Test mode").
      WHERE v.created_at > ${p.since} AND v.status <> 'pending' AND v.mode = 'live'
    ),
    ranked AS (
      SELECT f.*, ROW_NUMBER() OVER (
        PARTITION BY f.workspace_id, f.range_prefix ORDER BY f.created_at DESC, f.id DESC) AS rn
      FROM finished f
      WHERE f.percent > 0
        -- Blocked sends create no verification: evidence from before a block would block the range again at once.
        AND f.created_at >= coalesce((SELECT max(coalesce(b.lifted_at, b.blocked_until)) FROM fraud_blocks b
          WHERE b.workspace_id = f.workspace_id AND b.range_prefix = f.range_prefix), 0)
    )
    SELECT r.workspace_id, r.range_prefix, max(r.sends) AS sends, max(r.percent) AS percent,
      count(*) AS judged, sum(CASE WHEN r.status = 'verified' THEN 1 ELSE 0 END) AS verified,
      min(r.created_at) AS oldest
    FROM ranked r
    WHERE r.rn <= r.sends
      -- Prefixes are + and digits only (rules.ts): an entry that starts the range covers all of it.
      AND NOT EXISTS (SELECT 1 FROM fraud_allow a WHERE a.workspace_id = r.workspace_id
        AND a.prefix = substr(r.range_prefix, 1, length(a.prefix)))
    GROUP BY r.workspace_id, r.range_prefix
    HAVING count(*) >= max(r.sends)
  `.execute(db);
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    range: r.range_prefix,
    sends: Number(r.sends),
    percent: Number(r.percent),
    judged: Number(r.judged),
    verified: Number(r.verified),
    oldest: Number(r.oldest),
  }));
}

/** A country's last N finished sends in a workspace, counted. */
export interface CountryConversion extends Omit<RangeConversion, 'range'> {
  country: string;
}

/**
 * Every (workspace, country) with at least N finished sends (the country's setting: country_conversion_sends)
 * created since `since` and after the country's last block ended or was lifted, counted over its last N, for
 * workspaces whose country signal is on. Sends to numbers an allow-list entry covers are no evidence (a test
 * number never checked says nothing of the country). One statement, as findConversions.
 */
export async function findCountryConversions(db: Db, p: { since: number }): Promise<CountryConversion[]> {
  const { rows } = await sql<{
    workspace_id: string;
    country: string;
    sends: number;
    percent: number;
    judged: number;
    verified: number;
    oldest: number;
  }>`
    WITH finished AS (
      SELECT v.id, v.workspace_id, v.status, v.created_at, v.country,
        coalesce(s.country_conversion_sends, ${FRAUD_DEFAULTS.country_conversion_sends}) AS sends,
        coalesce(s.country_conversion_percent, ${FRAUD_DEFAULTS.country_conversion_percent}) AS percent
      FROM verifications v
      LEFT JOIN fraud_settings s ON s.workspace_id = v.workspace_id
      WHERE v.created_at > ${p.since} AND v.status <> 'pending' AND v.mode = 'live'
        -- Prefixes are + and digits only (rules.ts): plain comparison of the number's start is exact.
        AND NOT EXISTS (SELECT 1 FROM fraud_allow a WHERE a.workspace_id = v.workspace_id
          AND a.prefix = substr(v.phone, 1, length(a.prefix)))
    ),
    ranked AS (
      SELECT f.*, ROW_NUMBER() OVER (
        PARTITION BY f.workspace_id, f.country ORDER BY f.created_at DESC, f.id DESC) AS rn
      FROM finished f
      WHERE f.percent > 0
        -- A country's block is keyed by its two letters, as a range's by its prefix (rules.ts isCountryKey).
        AND f.created_at >= coalesce((SELECT max(coalesce(b.lifted_at, b.blocked_until)) FROM fraud_blocks b
          WHERE b.workspace_id = f.workspace_id AND b.range_prefix = f.country), 0)
    )
    SELECT r.workspace_id, r.country, max(r.sends) AS sends, max(r.percent) AS percent,
      count(*) AS judged, sum(CASE WHEN r.status = 'verified' THEN 1 ELSE 0 END) AS verified,
      min(r.created_at) AS oldest
    FROM ranked r
    WHERE r.rn <= r.sends
    GROUP BY r.workspace_id, r.country
    HAVING count(*) >= max(r.sends)
  `.execute(db);
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    country: r.country,
    sends: Number(r.sends),
    percent: Number(r.percent),
    judged: Number(r.judged),
    verified: Number(r.verified),
    oldest: Number(r.oldest),
  }));
}

/**
 * Takes the range's row lock as a send does (upserting the row: the range may have no row), without touching it,
 * and returns its block's end. The caller's transaction then decides and writes with every other writer of the
 * range waiting.
 */
export async function lockRangeForJudgement(
  db: Db,
  p: { workspaceId: string; range: string; now: number },
): Promise<{ blockedUntil: number | null }> {
  const row = await db
    .insertInto('fraud_ranges')
    .values({
      workspace_id: p.workspaceId,
      range_prefix: p.range,
      touched_at: p.now,
      blocked_until: null,
      block_id: null,
      block_reason: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'range_prefix'])
        .doUpdateSet((eb) => ({ touched_at: eb.ref('fraud_ranges.touched_at') })),
    )
    .returning('blocked_until')
    .executeTakeFirstOrThrow();
  return { blockedUntil: row.blocked_until };
}

/** Whether a block of the range ended (or was lifted) after `since`, or is still in force. */
export async function blockEndedAfter(
  db: Db,
  p: { workspaceId: string; range: string; since: number },
): Promise<boolean> {
  const row = await db
    .selectFrom('fraud_blocks')
    .select('id')
    .where('workspace_id', '=', p.workspaceId)
    .where('range_prefix', '=', p.range)
    .where((eb) => eb(eb.fn.coalesce('lifted_at', 'blocked_until'), '>', p.since))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
