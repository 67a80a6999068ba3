// Time is injected so tests move it instead of sleeping. All stored times are epoch milliseconds.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339, UTC, milliseconds: the one wire format for timestamps. */
export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
