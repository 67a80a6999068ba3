// The overview's numbers for one workspace and period: totals, sends over time, by channel and by country.
// Built from roll-up rows: stored ones for the hours rolled up, and for the rest the counts kept as verifications
// change (counts.ts), in the same shape (rollup-queries.ts). The gaps (hours without sends) are filled in here.
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { readWatermark } from '../store/watermarks.js';
import type { Mode } from '../vocabulary/modes.js';
import { countryOfPrefix } from './country.js';
import { countedHours } from './counts.js';
import { bucketStarts, HOUR_MS, type Period, type PeriodName, periodEndingAt } from './period.js';
import { COUNTED, type Counts } from './queries.js';
import { aggregate, histogramOf, rolledUp } from './rollup-queries.js';

export type { Counts };

export interface Rated extends Counts {
  /** verified / sends; null without sends. */
  conversion: number | null;
}

export interface OverviewStats {
  period: Period;
  totals: Rated & { medianSecondsToVerify: number | null };
  /** Every bucket of the period, oldest first, zeros included. */
  timeline: (Counts & { start: number })[];
  /** Most sends first. */
  channels: (Rated & { channel: string })[];
  /** Most sends first. */
  countries: (Rated & { country: string })[];
}

const ZERO: Counts = {
  sends: 0,
  verified: 0,
  undelivered: 0,
  pending: 0,
  canceled: 0,
  expired: 0,
  failed: 0,
};

function add(a: Counts, b: Counts): Counts {
  const sum = { ...a, sends: a.sends + b.sends };
  for (const status of COUNTED) sum[status] = a[status] + b[status];
  return sum;
}

function rated<T extends Counts>(counts: T): T & { conversion: number | null } {
  return { ...counts, conversion: counts.sends === 0 ? null : counts.verified / counts.sends };
}

const bySendsThenName =
  <T extends Counts>(name: (x: T) => string) =>
  (a: T, b: T) =>
    b.sends - a.sends || name(a).localeCompare(name(b));

/** The lower median of a histogram of whole seconds (a time someone actually took). */
export function medianOf(histogram: { seconds: number; count: number }[]): number | null {
  const total = histogram.reduce((n, h) => n + h.count, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const h of [...histogram].sort((a, b) => a.seconds - b.seconds)) {
    seen += h.count;
    if (seen * 2 >= total) return h.seconds;
  }
  return null;
}

/** The counts of one time bucket, channel or destination (rows of several sources added up). */
function sumBy<T extends Counts, K>(rows: T[], key: (row: T) => K): Map<K, Counts> {
  const sums = new Map<K, Counts>();
  for (const row of rows) sums.set(key(row), add(sums.get(key(row)) ?? ZERO, row));
  return sums;
}

/**
 * The period's numbers: hours rolled up (rollups.ts) come from their roll-up rows, the rest (the last hour or so,
 * whose codes may still change) from their counts (counts.ts). The watermark is read first: roll-ups below it are
 * final. `rolledBefore` reads the roll-ups below another point and the raw rows above it instead (0: the raw rows
 * alone, as a test compares).
 */
export async function loadOverview(
  db: Db,
  workspaceId: string,
  period: Period,
  rolledBefore?: number,
  mode: Mode = 'live',
): Promise<OverviewStats> {
  // The roll-ups hold live data only: test data comes from its raw rows alone.
  const watermark = mode === 'live' ? await readWatermark(db, 'verification_rollups') : 0;
  // Never above the watermark: the roll-ups stop there.
  const rolled = Math.min(watermark, rolledBefore ?? watermark);
  // Whole hours of the period that are rolled up, never the hour of `until` (a later row there is not counted).
  const split = Math.max(period.since, Math.min(rolled, Math.floor(period.until / HOUR_MS) * HOUR_MS));
  // The hours not rolled up yet: live ones from their counts (counts.ts), kept as the rows change; test data, or
  // every hour when asked for the raw rows alone (`rolledBefore`), in one pass over their rows.
  const before = period.until + 1;
  const [rolledRows, recent] = await Promise.all([
    split > period.since ? rolledUp(db, workspaceId, period.since, split) : [],
    mode === 'live' && rolledBefore === undefined
      ? countedHours(db, workspaceId, split, period.until)
      : aggregate(db, { workspaceId, since: split, before, mode }),
  ]);
  const rollups = [...rolledRows, ...recent];

  const byBucket = sumBy(rollups, (r) => Math.floor(r.hour / period.bucketMs));
  const timeline = bucketStarts(period).map((start) => ({
    start,
    ...(byBucket.get(start / period.bucketMs) ?? ZERO),
  }));

  const byChannel = sumBy(rollups, (c) => c.channel);
  // Old rows resolved from their prefix merge into the country they belong to.
  const byCountry = sumBy(rollups, (row) => row.country || countryOfPrefix(row.prefix));
  const histogram = rollups.flatMap((r) => histogramOf(r).map(([seconds, count]) => ({ seconds, count })));

  const totals = [...byChannel.values()].reduce<Counts>((sum, c) => add(sum, c), ZERO);
  return {
    period,
    totals: { ...rated(totals), medianSecondsToVerify: medianOf(histogram) },
    timeline,
    channels: [...byChannel]
      .map(([channel, counts]) => rated({ channel, ...counts }))
      .sort(bySendsThenName((c) => c.channel)),
    countries: [...byCountry]
      .map(([country, counts]) => rated({ country, ...counts }))
      .sort(bySendsThenName((c) => c.country)),
  };
}

/** The overview as a service: a workspace's numbers for the period of that name ending now. */
export function createOverview(deps: { db: Db; clock: Clock }) {
  return {
    /** Live data unless `mode` asks for the test data. */
    load: (workspaceId: string, period: PeriodName, mode: Mode = 'live'): Promise<OverviewStats> =>
      loadOverview(deps.db, workspaceId, periodEndingAt(period, deps.clock.now()), undefined, mode),
  };
}

export type Overview = ReturnType<typeof createOverview>;
