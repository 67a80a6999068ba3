// SQL of the pumping guard's conversion signal (docs/api.md "Pumping guard"), per range and per country. Off the
// send path: the sweeper's judgement reads a day of finished sends (of the keys that changed: conversion.ts) at
// most once a minute (once for ranges, once for countries), then writes each block in a transaction of its own
// with the range's (or the country's) row locked.
// Functions take the database (or a transaction) first.
import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
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

/** A country's last N finished sends in a workspace, counted. */
export interface CountryConversion extends Omit<RangeConversion, 'range'> {
  country: string;
}

type Counted = Omit<RangeConversion, 'range'> & { key: string };

/** What tells the two signals apart: what a send is judged under, its settings, and where the allow list applies. */
interface Signal {
  /** The send's key: its range (the number minus its last digits) or its country. */
  key: RawBuilder<string>;
  sends: RawBuilder<number>;
  percent: RawBuilder<number>;
  /** Sends excluded before counting (the country's: numbers the allow list covers say nothing of the country). */
  excludeSend: RawBuilder<unknown>;
  /** Keys excluded after counting (the range's: an entry that starts the range covers all of it). */
  excludeKey: RawBuilder<unknown>;
}

// Prefixes are + and digits only (rules.ts): plain comparison of a number's (or a range's) start is exact.
const coveredByAllowList = (alias: 'r' | 'v', start: 'judged_key' | 'phone') =>
  sql`EXISTS (SELECT 1 FROM fraud_allow a WHERE a.workspace_id = ${sql.ref(`${alias}.workspace_id`)}
    AND a.prefix = substr(${sql.ref(`${alias}.${start}`)}, 1, length(a.prefix)))`;

/** Which sends are read: those created since `since`; with `changedFrom`, only of keys a send created since then has. */
export interface JudgedSpan {
  since: number;
  /**
   * Only the keys of the live finished sends created since this time (conversion.ts: every send that finished since
   * the last judgement was created since its finality horizon). Undefined: every key.
   */
  changedFrom?: number | undefined;
  /**
   * A key with at least N finished sends created since this time has its last N among them: only those are ranked
   * (conversion.ts DENSE_SLICE_MS). Undefined: every send of the span is ranked.
   */
  denseFrom?: number | undefined;
}

/**
 * Every (workspace, key) with at least N finished sends (status other than pending) created since `since` and
 * after the key's last block ended or was lifted (a block in force ends in the future, so its key has none),
 * counted over its last N, for workspaces whose signal is on. One statement: the created_at index bounds it to a
 * day; ROW_NUMBER keeps the last N of each key (SQLite and PostgreSQL alike). A block is keyed by a range's prefix
 * or a country's two letters alike (rules.ts isCountryKey). Whether the share is low is the caller's
 * (rules.ts isLowConversion).
 *
 * The ranking (a sort of every send it ranks) is most of the statement's time, so it ranks as few as give the same
 * answer: with `changedFrom`, only the sends of the keys a send created since then has; with `denseFrom`, a key with
 * N sends or more since then (a country, mostly) has only those ranked, since its last N are among them.
 */
async function findBy(db: Db, span: JudgedSpan, signal: Signal): Promise<Counted[]> {
  const { since, changedFrom, denseFrom } = span;
  const changed =
    changedFrom === undefined
      ? sql``
      : sql`JOIN (
          SELECT DISTINCT v.workspace_id, ${signal.key} AS judged_key FROM verifications v
          WHERE v.created_at >= ${changedFrom} AND v.status <> 'pending' AND v.mode = 'live'
        ) c ON c.workspace_id = v.workspace_id AND c.judged_key = ${signal.key}`;
  /** The evidence created after `from`: live finished sends, of a workspace whose signal is on, after the key's last block. */
  const evidence = (from: number) => sql`
      FROM verifications v
      ${changed}
      LEFT JOIN fraud_settings s ON s.workspace_id = v.workspace_id
      -- Each key's last block's end, joined (not a subquery per send: one look-up for each of a day's sends).
      LEFT JOIN (
        SELECT b.workspace_id, b.range_prefix, max(coalesce(b.lifted_at, b.blocked_until)) AS ended
        FROM fraud_blocks b GROUP BY b.workspace_id, b.range_prefix
      ) e ON e.workspace_id = v.workspace_id AND e.range_prefix = ${signal.key}
      -- Live sends only: a test key's codes reach nobody, so they say nothing of a range or a country (docs/api.md,
      -- "Test mode").
      WHERE v.created_at > ${from} AND v.status <> 'pending' AND v.mode = 'live' AND NOT (${signal.excludeSend})
        AND ${signal.percent} > 0
        -- Blocked sends create no verification: evidence from before a block would block the key again at once.
        AND v.created_at >= coalesce(e.ended, 0)`;
  const dense =
    denseFrom === undefined || denseFrom <= since
      ? undefined
      : sql`SELECT v.workspace_id, ${signal.key} AS judged_key ${evidence(denseFrom)}
          GROUP BY 1, 2 HAVING count(*) >= max(${signal.sends})`;
  const { rows } = await sql<{
    workspace_id: string;
    judged_key: string;
    sends: number;
    percent: number;
    judged: number;
    verified: number;
    oldest: number;
  }>`
    WITH ${dense ? sql`dense AS (${dense}),` : sql``}
    finished AS (
      SELECT v.id, v.workspace_id, v.status, v.created_at, ${signal.key} AS judged_key,
        ${signal.sends} AS sends, ${signal.percent} AS percent
      ${evidence(since)}
    ),
    ranked AS (
      SELECT f.*, ROW_NUMBER() OVER (
        PARTITION BY f.workspace_id, f.judged_key ORDER BY f.created_at DESC, f.id DESC) AS rn
      FROM finished f
      ${
        dense
          ? sql`LEFT JOIN dense d ON d.workspace_id = f.workspace_id AND d.judged_key = f.judged_key
      WHERE f.created_at > ${denseFrom} OR d.workspace_id IS NULL`
          : sql``
      }
    )
    SELECT r.workspace_id, r.judged_key, max(r.sends) AS sends, max(r.percent) AS percent,
      count(*) AS judged, sum(CASE WHEN r.status = 'verified' THEN 1 ELSE 0 END) AS verified,
      min(r.created_at) AS oldest
    FROM ranked r
    WHERE r.rn <= r.sends AND NOT (${signal.excludeKey})
    GROUP BY r.workspace_id, r.judged_key
    HAVING count(*) >= max(r.sends)
  `.execute(db);
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    key: r.judged_key,
    sends: Number(r.sends),
    percent: Number(r.percent),
    judged: Number(r.judged),
    verified: Number(r.verified),
    oldest: Number(r.oldest),
  }));
}

/** The conversion signal per range: every range whose last N finished sends can be judged (findBy). */
export async function findConversions(db: Db, span: JudgedSpan): Promise<RangeConversion[]> {
  const counted = await findBy(db, span, {
    key: sql<string>`substr(v.phone, 1, length(v.phone) - ${RANGE_SUFFIX_DIGITS})`,
    sends: sql<number>`coalesce(s.conversion_sends, ${FRAUD_DEFAULTS.conversion_sends})`,
    percent: sql<number>`coalesce(s.conversion_percent, ${FRAUD_DEFAULTS.conversion_percent})`,
    excludeSend: sql`0 = 1`,
    excludeKey: coveredByAllowList('r', 'judged_key'),
  });
  return counted.map(({ key, ...c }) => ({ ...c, range: key }));
}

/**
 * The conversion signal per country (country_conversion_sends, country_conversion_percent): sends to numbers an
 * allow-list entry covers are no evidence (a test number never checked says nothing of the country).
 */
export async function findCountryConversions(db: Db, span: JudgedSpan): Promise<CountryConversion[]> {
  const counted = await findBy(db, span, {
    key: sql<string>`v.country`,
    sends: sql<number>`coalesce(s.country_conversion_sends, ${FRAUD_DEFAULTS.country_conversion_sends})`,
    percent: sql<number>`coalesce(s.country_conversion_percent, ${FRAUD_DEFAULTS.country_conversion_percent})`,
    excludeSend: coveredByAllowList('v', 'phone'),
    excludeKey: sql`0 = 1`,
  });
  return counted.map(({ key, ...c }) => ({ ...c, country: key }));
}

/**
 * What else a judgement's verdicts depend on, besides the sends: every workspace's conversion settings and allow list,
 * as a digest of their rows (a time of change would miss a change made in the same millisecond, or by a server
 * whose clock is behind). Both tables are small: a row per workspace, a few entries each.
 */
export async function judgementMark(db: Db): Promise<string> {
  const [settings, allowed] = await Promise.all([
    db
      .selectFrom('fraud_settings')
      .select([
        'workspace_id',
        'conversion_sends',
        'conversion_percent',
        'country_conversion_sends',
        'country_conversion_percent',
      ])
      .orderBy('workspace_id')
      .execute(),
    db
      .selectFrom('fraud_allow')
      .select(['workspace_id', 'prefix'])
      .orderBy('workspace_id')
      .orderBy('prefix')
      .execute(),
  ]);
  return createHash('sha256')
    .update(JSON.stringify([settings, allowed]))
    .digest('base64url');
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
