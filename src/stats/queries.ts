// The overview's aggregate SQL over `verifications`, one workspace and one time window at a time. Every query
// returns a bounded aggregate (one row per bucket, channel, country or second), never the rows themselves.
// Portable between SQLite and PostgreSQL: integer division of integers truncates in both, the bucket width is
// inlined as a literal (a bound parameter may arrive as a float in SQLite), and substr/case/sum exist in both.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { Mode } from '../vocabulary/modes.js';

export interface Window {
  workspaceId: string;
  since: number;
  until: number;
  /** Live data, or the test data the dashboard's toggle asks for: never both. */
  mode: Mode;
}

/** Sends, and how many of them are in each status: every send is exactly one of the six. */
export interface Counts {
  sends: number;
  verified: number;
  undelivered: number;
  pending: number;
  canceled: number;
  expired: number;
  failed: number;
}

/** The statuses counted one by one, besides the sends themselves. */
export const COUNTED = ['verified', 'undelivered', 'pending', 'canceled', 'expired', 'failed'] as const;

const statusCount = (status: (typeof COUNTED)[number]) =>
  sql<number>`sum(case when status = ${sql.lit(status)} then 1 else 0 end)`.as(status);

// Shared with the roll-ups (rollup-queries.ts), so rolled-up hours count exactly as the raw rows do.
export const sends = sql<number>`count(*)`;
/** The select list of a Counts row: sends and each status's count. */
export const countColumns = [sends.as('sends'), ...COUNTED.map(statusCount)];
/** Where a row has no country (written before it was kept): the number's first characters, resolved later. */
export const unknownCountryPrefix = sql<
  string | null
>`case when country is null then substr(phone, 1, 5) end`;
/** Whole seconds from send to verification (integer division truncates alike in both stores). */
export const verifySeconds = sql<number>`(verified_at - created_at) / 1000`;

function inWindow(db: Db, window: Window) {
  return db
    .selectFrom('verifications')
    .where('workspace_id', '=', window.workspaceId)
    .where('created_at', '>=', window.since)
    .where('created_at', '<=', window.until)
    .where('mode', '=', window.mode);
}

// PostgreSQL's count and sum are bigint; the store parses bigint to number, and Number() keeps SQLite alike.
export function toCounts(row: Record<keyof Counts, unknown>): Counts {
  return {
    sends: Number(row.sends),
    verified: Number(row.verified),
    undelivered: Number(row.undelivered),
    pending: Number(row.pending),
    canceled: Number(row.canceled),
    expired: Number(row.expired),
    failed: Number(row.failed),
  };
}

/** Sends per bucket: `bucket` is floor(created_at / bucketMs), buckets without sends are absent. */
export async function countsByBucket(
  db: Db,
  window: Window,
  bucketMs: number,
): Promise<(Counts & { bucket: number })[]> {
  if (!Number.isSafeInteger(bucketMs) || bucketMs <= 0)
    throw new Error('bucketMs must be a positive integer');
  const bucket = sql<number>`created_at / ${sql.lit(bucketMs)}`;
  const rows = await inWindow(db, window)
    .select([bucket.as('bucket'), ...countColumns])
    .groupBy(bucket)
    .execute();
  return rows.map((r) => ({ bucket: Number(r.bucket), ...toCounts(r) }));
}

export async function countsByChannel(db: Db, window: Window): Promise<(Counts & { channel: string })[]> {
  const rows = await inWindow(db, window)
    .select(['channel', ...countColumns])
    .groupBy('channel')
    .execute();
  return rows.map((r) => ({ channel: r.channel, ...toCounts(r) }));
}

/**
 * Sends per destination country. Rows written before the country was kept have none: those are grouped by the
 * first characters of the number (calling code and, for +1, the area code), which the caller resolves.
 */
export async function countsByCountry(
  db: Db,
  window: Window,
): Promise<(Counts & { country: string | null; prefix: string | null })[]> {
  const prefix = unknownCountryPrefix;
  const rows = await inWindow(db, window)
    .select(['country', prefix.as('prefix'), ...countColumns])
    .groupBy(['country', prefix])
    .execute();
  return rows.map((r) => ({ country: r.country, prefix: r.prefix, ...toCounts(r) }));
}

/** How long verified codes took, as a histogram in whole seconds (bounded by the longest code lifetime). */
export async function secondsToVerify(db: Db, window: Window): Promise<{ seconds: number; count: number }[]> {
  const seconds = verifySeconds;
  const isVerified: Expression<SqlBool> = sql<SqlBool>`status = 'verified' and verified_at is not null`;
  const rows = await inWindow(db, window)
    .where(isVerified)
    .select([seconds.as('seconds'), sends.as('count')])
    .groupBy(seconds)
    .execute();
  return rows.map((r) => ({ seconds: Number(r.seconds), count: Number(r.count) }));
}
