// The overview's hours not rolled up yet, from the counts that triggers keep as verifications change (migration
// 0017): a read of a few rows an hour (a key per channel, destination and seconds to verify, times the writing
// PostgreSQL processes), whatever the number of sends, where the raw rows of a burst cost a pass over every one.
// The counts are live data only; the overview reads test data from its raw rows.
import type { Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import { HOUR_MS } from './period.js';
import { COUNTED } from './queries.js';
import { aggregateGroups, type CountedGroup, type RollupRow, rollupRowsOf } from './rollup-queries.js';

const KEY = ['workspace_id', 'hour', 'channel', 'country', 'prefix', 'seconds'] as const;
const COUNTS = ['sends', ...COUNTED] as const;

const countsOf = prepared((db: Db, p: { workspaceId: string; since: number; before: number }) =>
  db
    .selectFrom('verification_counts')
    .select([...KEY, ...COUNTS.map((c) => db.fn.sum<number>(c).as(c))])
    .where('workspace_id', '=', p.workspaceId)
    .where('hour', '>=', p.since)
    .where('hour', '<', p.before)
    .groupBy([...KEY]),
);

const negated = (g: CountedGroup): CountedGroup => {
  const out = { ...g };
  for (const c of COUNTS) out[c] = -Number(g[c]);
  return out;
};

/**
 * A workspace's live verifications created from `since` (a whole hour) to `until` (inclusive) as roll-up rows:
 * the counts of those hours, the shards added up, less the rows of the last hour created after `until` (none but
 * where clocks disagree, or a test moves its clock back: an index range of nothing).
 */
export async function countedHours(
  db: Db,
  workspaceId: string,
  since: number,
  until: number,
): Promise<RollupRow[]> {
  const before = Math.floor(until / HOUR_MS) * HOUR_MS + HOUR_MS;
  const [{ rows }, later] = await Promise.all([
    countsOf(db, { workspaceId, since, before }),
    aggregateGroups(db, { workspaceId, since: until + 1, before, mode: 'live' }),
  ]);
  const groups: CountedGroup[] = rows.map((g) => {
    const seconds = Number(g.seconds);
    return { ...g, hour: Number(g.hour), seconds: seconds < 0 ? null : seconds };
  });
  return rollupRowsOf([...groups, ...later.map(negated)]);
}
