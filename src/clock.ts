// Time is injected so tests move it instead of sleeping. All stored times are epoch milliseconds.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339, UTC, milliseconds: the one wire format for timestamps. */
export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Strictly increasing stamps (microsecond-scale: milliseconds x 1000 plus a counter) for "newest first" orders.
 * Within a process two stamps never tie, even in the same millisecond or under a frozen test clock.
 */
export function monotonicStamps(clock: Clock): () => number {
  let last = 0;
  return () => {
    last = Math.max(last + 1, clock.now() * 1000);
    return last;
  };
}
