// The roll-ups' SQL: one hour of every workspace's verifications aggregated as the overview counts them (the
// expressions of queries.ts, so a rolled-up hour and its raw rows count alike), and a workspace's rolled-up rows
// over whole hours.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { VerificationRollupsTable } from '../store/tables.js';
import { HOUR_MS } from './period.js';
import { COUNTED, countColumns, toCounts, unknownCountryPrefix, verifySeconds } from './queries.js';

export type RollupRow = VerificationRollupsTable;

/** [whole seconds, how many verified codes took them], ascending. */
export type VerifyHistogram = [number, number][];

const secondsIfVerified = sql<
  number | null
>`case when status = 'verified' and verified_at is not null then ${verifySeconds} end`;

/**
 * Every workspace's live verifications created in the hour starting at `hour`, as roll-up rows. The roll-ups are
 * live data only: the overview's test data (small: a customer's test suites) is read from the raw rows.
 */
export async function aggregateHour(db: Db, hour: number): Promise<RollupRow[]> {
  const groups = await db
    .selectFrom('verifications')
    .select([
      'workspace_id',
      'channel',
      'country',
      unknownCountryPrefix.as('prefix'),
      secondsIfVerified.as('seconds'),
      ...countColumns,
    ])
    .where('created_at', '>=', hour)
    .where('created_at', '<', hour + HOUR_MS)
    .where('mode', '=', sql.lit('live'))
    .groupBy(['workspace_id', 'channel', 'country', unknownCountryPrefix, secondsIfVerified])
    .execute();
  // One row per workspace, channel and destination; its histogram gathers the groups that differ by seconds.
  const rows = new Map<string, { row: RollupRow; histogram: VerifyHistogram }>();
  for (const g of groups) {
    const country = g.country ?? '';
    const prefix = g.prefix ?? '';
    const key = JSON.stringify([g.workspace_id, g.channel, country, prefix]);
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
      entry = { row, histogram: [] };
      rows.set(key, entry);
    }
    const counts = toCounts(g);
    entry.row.sends += counts.sends;
    for (const status of COUNTED) entry.row[status] += counts[status];
    // A group with seconds holds verified codes only: its every row took that long.
    if (g.seconds !== null) entry.histogram.push([Number(g.seconds), counts.sends]);
  }
  return [...rows.values()].map(({ row, histogram }) => ({
    ...row,
    verify_seconds: JSON.stringify(histogram.sort((a, b) => a[0] - b[0])),
  }));
}

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
