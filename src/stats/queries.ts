// What the overview counts, and the SQL expressions that count it (rollup-queries.ts aggregates with them).
// Portable between SQLite and PostgreSQL: integer division of integers truncates in both, a divisor is inlined as
// a literal (a bound parameter may arrive as a float in SQLite), and substr/case/sum exist in both.
import { sql } from 'kysely';
import type { SendCounts } from '../store/tables.js';

/** Sends, and how many of them are in each status: every send is exactly one of the six. */
export type Counts = SendCounts;

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
