// Waiting in tests: for something to happen (eventually), never for a fixed time. Expiry and limits are tested
// by moving the injected clock (clock.ts); a fixed wait is only for showing that something does NOT happen.
import { setTimeout as sleep } from 'node:timers/promises';

/** Generous: a slow or busy CI machine must never fail a test; a condition that never holds still ends it. */
export const EVENTUALLY_TIMEOUT_MS = 60_000;

export interface EventuallyOptions {
  /** How long to keep polling before failing (EVENTUALLY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The pause between polls (25 ms). */
  intervalMs?: number;
  /**
   * At most this many polls, where the bound is itself what the test asserts ("recovers within N retries"); the
   * deadline still applies. Unbounded by default.
   */
  attempts?: number;
}

/**
 * Polls `probe` until it returns something other than undefined or false, and returns that. An error thrown by
 * the probe (a failed assertion) fails the wait at once: only "not yet" is retried. Past the deadline it fails
 * naming `what`.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = EVENTUALLY_TIMEOUT_MS, intervalMs = 25, attempts = Number.POSITIVE_INFINITY } = options;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (attempt >= attempts) throw new Error(`${what}: did not happen within ${attempts} attempts`);
    if (Date.now() > deadline) throw new Error(`${what}: did not happen within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/**
 * A fixed wait, for a test that asserts something does NOT happen during it (a duplicate, a crash). Never use
 * it to wait for something to happen: use `eventually`, or move the injected clock.
 */
export function quietPeriod(ms: number): Promise<void> {
  return sleep(ms);
}
