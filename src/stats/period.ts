// The overview's periods: a window ending now, cut into UTC-aligned buckets (hours or days). The window starts at
// the beginning of the oldest bucket, so tiles and charts count exactly the same rows and no bar is partial
// except the current one.
export const PERIODS = ['day', 'week'] as const;
export type PeriodName = (typeof PERIODS)[number];

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export interface Period {
  name: PeriodName;
  /** Bucket width; epoch-aligned, so hours and days are UTC hours and days. */
  bucketMs: number;
  /** How many buckets, the current (partial) one included. */
  buckets: number;
  /** First millisecond counted (inclusive): the start of the oldest bucket. */
  since: number;
  /** Last millisecond counted (inclusive): now. */
  until: number;
}

const SHAPES: Record<PeriodName, { bucketMs: number; buckets: number }> = {
  day: { bucketMs: HOUR_MS, buckets: 24 },
  week: { bucketMs: DAY_MS, buckets: 7 },
};

/** A period name from a query string; anything unknown is the last day. */
export function parsePeriodName(value: unknown): PeriodName {
  return PERIODS.includes(value as PeriodName) ? (value as PeriodName) : 'day';
}

export function periodEndingAt(name: PeriodName, now: number): Period {
  const { bucketMs, buckets } = SHAPES[name];
  const currentBucket = Math.floor(now / bucketMs);
  return { name, bucketMs, buckets, since: (currentBucket - buckets + 1) * bucketMs, until: now };
}

/** The start (epoch ms) of every bucket of the period, oldest first. */
export function bucketStarts(period: Period): number[] {
  return Array.from({ length: period.buckets }, (_, i) => period.since + i * period.bucketMs);
}
