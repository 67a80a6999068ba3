// The roll-ups' SQL: verifications aggregated as the overview counts them (the expressions of queries.ts), by
// hour: one hour of every workspace's for a roll-up, or a workspace's hours not rolled up yet for the overview, so
// a rolled-up hour and its raw rows count alike; and a workspace's rolled-up rows over whole hours.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { VerificationRollupsTable } from '../store/tables.js';
import type { Mode } from '../vocabulary/modes.js';
import { HOUR_MS } from './period.js';
import {
  COUNTED,
  type Counts,
  countColumns,
  toCounts,
  unknownCountryPrefix,
  verifySeconds,
} from './queries.js';

export type RollupRow = VerificationRollupsTable;

/** [whole seconds, how many verified codes took them], ascending. */
export type VerifyHistogram = [number, number][];

const secondsIfVerified = sql<
  number | null
>`case when status = 'verified' and verified_at is not null then ${verifySeconds} end`;

/** Which verifications an aggregate counts: created in [since, before), of one workspace or all, of one mode. */
export interface Span {
  /** One workspace's rows; every workspace's when absent (the roll-ups). */
  workspaceId?: string;
  since: number;
  /** Exclusive. */
  before: number;
  mode: Mode;
}

const hourOf = sql<number>`created_at / ${sql.lit(HOUR_MS)}`;

/**
 * The verifications of `span` grouped by roll-up key and seconds to verify. One scan of the rows gives every figure
 * the overview shows (its buckets are whole hours, or days made of them), so the hours not rolled up yet cost one
 * pass, not one per figure.
 */
export async function aggregateGroups(db: Db, span: Span): Promise<CountedGroup[]> {
  let query = db
    .selectFrom('verifications')
    .select([
      'workspace_id',
      hourOf.as('hour'),
      'channel',
      'country',
      unknownCountryPrefix.as('prefix'),
      secondsIfVerified.as('seconds'),
      ...countColumns,
    ])
    .where('created_at', '>=', span.since)
    .where('created_at', '<', span.before)
    .where('mode', '=', span.mode);
  if (span.workspaceId !== undefined) query = query.where('workspace_id', '=', span.workspaceId);
  const groups = await query
    .groupBy(['workspace_id', hourOf, 'channel', 'country', unknownCountryPrefix, secondsIfVerified])
    .execute();
  return groups.map((g) => ({
    ...g,
    hour: Number(g.hour) * HOUR_MS,
    seconds: g.seconds === null ? null : Number(g.seconds),
  }));
}

/** The verifications of `span` as roll-up rows: one per workspace, hour, channel and destination. */
export async function aggregate(db: Db, span: Span): Promise<RollupRow[]> {
  return rollupRowsOf(await aggregateGroups(db, span));
}

/** One group of an aggregate: a roll-up key, the seconds its verified rows took (null: not verified), its counts. */
export interface CountedGroup extends Record<keyof Counts, unknown> {
  workspace_id: string;
  /** Epoch ms of the hour. */
  hour: number;
  channel: RollupRow['channel'];
  country: RollupRow['country'] | null;
  prefix: string | null;
  seconds: number | null;
}

/**
 * Groups as roll-up rows: one per workspace, hour, channel and destination, its histogram from the seconds. Groups
 * of one key are added up, negative ones too (counts.ts subtracts rows).
 */
export function rollupRowsOf(groups: readonly CountedGroup[]): RollupRow[] {
  const rows = new Map<string, { row: RollupRow; histogram: Map<number, number> }>();
  for (const g of groups) {
    const { hour } = g;
    const country = g.country ?? '';
    const prefix = g.prefix ?? '';
    const key = JSON.stringify([g.workspace_id, hour, g.channel, country, prefix]);
    let entry = rows.get(key);
    if (!entry) {
      const row: RollupRow = {
        workspace_id: g.workspace_id,
        hour,
        channel: g.channel,
        country,
        prefix,
        sends: 0,
        verified: 0,
        undelivered: 0,
        pending: 0,
        canceled: 0,
        expired: 0,
        failed: 0,
        verify_seconds: '',
      };
      entry = { row, histogram: new Map() };
      rows.set(key, entry);
    }
    const counts = toCounts(g);
    entry.row.sends += counts.sends;
    for (const status of COUNTED) entry.row[status] += counts[status];
    // A group with seconds holds verified codes only: its every row took that long.
    if (g.seconds !== null)
      entry.histogram.set(g.seconds, (entry.histogram.get(g.seconds) ?? 0) + counts.sends);
  }
  // Groups may take sends away (counts.ts): a row or a second left with none is not there.
  return [...rows.values()]
    .filter(({ row }) => row.sends !== 0)
    .map(({ row, histogram }) => ({
      ...row,
      verify_seconds: JSON.stringify([...histogram].filter(([, n]) => n !== 0).sort((a, b) => a[0] - b[0])),
    }));
}

/**
 * Every workspace's live verifications created in the hour starting at `hour`, as roll-up rows. The roll-ups are
 * live data only: the overview's test data (small: a customer's test suites) is read from the raw rows.
 */
export const aggregateHour = (db: Db, hour: number): Promise<RollupRow[]> =>
  aggregate(db, { since: hour, before: hour + HOUR_MS, mode: 'live' });

/** A workspace's roll-up rows for the hours in [since, before). */
export async function rolledUp(
  db: Db,
  workspaceId: string,
  since: number,
  before: number,
): Promise<RollupRow[]> {
  const rows = await db
    .selectFrom('verification_rollups')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('hour', '>=', since)
    .where('hour', '<', before)
    .execute();
  return rows.map((r) => ({ ...r, hour: Number(r.hour), ...toCounts(r) }));
}

export function histogramOf(row: RollupRow): VerifyHistogram {
  return JSON.parse(row.verify_seconds) as VerifyHistogram;
}
