// The overview's numbers for one workspace and period: totals, sends over time, by channel and by country.
// Built from the bounded aggregates in queries.ts; the gaps (hours without sends) are filled in here.
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { countryOfPrefix } from './country.js';
import { bucketStarts, type Period, type PeriodName, periodEndingAt } from './period.js';
import * as q from './queries.js';

export type Counts = q.Counts;

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

const ZERO: Counts = { sends: 0, verified: 0, undelivered: 0 };

function add(a: Counts, b: Counts): Counts {
  return {
    sends: a.sends + b.sends,
    verified: a.verified + b.verified,
    undelivered: a.undelivered + b.undelivered,
  };
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

export async function loadOverview(db: Db, workspaceId: string, period: Period): Promise<OverviewStats> {
  const window = { workspaceId, since: period.since, until: period.until };
  const [buckets, channels, countries, verifyTimes] = await Promise.all([
    q.countsByBucket(db, window, period.bucketMs),
    q.countsByChannel(db, window),
    q.countsByCountry(db, window),
    q.secondsToVerify(db, window),
  ]);

  const byBucket = new Map(buckets.map((b) => [b.bucket, b]));
  const timeline = bucketStarts(period).map((start) => {
    const found = byBucket.get(start / period.bucketMs);
    return {
      start,
      ...(found ? { sends: found.sends, verified: found.verified, undelivered: found.undelivered } : ZERO),
    };
  });

  // Old rows resolved from their prefix merge into the country they belong to.
  const countryTotals = new Map<string, Counts>();
  for (const row of countries) {
    const country = row.country ?? countryOfPrefix(row.prefix ?? '');
    countryTotals.set(country, add(countryTotals.get(country) ?? ZERO, row));
  }

  const totals = channels.reduce<Counts>((sum, c) => add(sum, c), ZERO);
  return {
    period,
    totals: { ...rated(totals), medianSecondsToVerify: medianOf(verifyTimes) },
    timeline,
    channels: channels
      .map((c) =>
        rated({ channel: c.channel, sends: c.sends, verified: c.verified, undelivered: c.undelivered }),
      )
      .sort(bySendsThenName((c) => c.channel)),
    countries: [...countryTotals]
      .map(([country, counts]) => rated({ country, ...counts }))
      .sort(bySendsThenName((c) => c.country)),
  };
}

/** The overview as a service: a workspace's numbers for the period of that name ending now. */
export function createOverview(deps: { db: Db; clock: Clock }) {
  return {
    load: (workspaceId: string, period: PeriodName): Promise<OverviewStats> =>
      loadOverview(deps.db, workspaceId, periodEndingAt(period, deps.clock.now())),
  };
}

export type Overview = ReturnType<typeof createOverview>;
