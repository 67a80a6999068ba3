// A clock tests move by hand, so expiry is tested without sleeping.
import type { Clock } from '../../src/clock.js';

export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeClock(start = Date.parse('2026-11-21T09:30:00.000Z')): FakeClock {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}
