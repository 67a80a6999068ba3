// When to try a hand-over again after a transient failure: exponential backoff with jitter, never sooner than
// the carrier asked (Retry-After). Jitter spreads the retries of many codes that failed together, so a carrier
// coming back is not hit by all of them in the same instant.

export const RETRY_BASE_MS = 1000;
export const RETRY_MAX_MS = 30_000;

/**
 * The delay before attempt `failures + 1`, after `failures` transient failures (1 or more): "equal jitter",
 * half the exponential step plus a random share of the other half, capped at RETRY_MAX_MS; at least the
 * carrier's Retry-After where it gave one.
 */
export function retryDelayMs(
  failures: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  const step = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, failures - 1));
  const jittered = Math.round(step / 2 + random() * (step / 2));
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * How long a process holds a job it is working: longer than one hand-over can take (the carrier timeout), so
 * no other process starts the same hand-over while the first may still succeed.
 */
export function leaseMsFor(carrierTimeoutMs: number): number {
  return carrierTimeoutMs * 2 + 1000;
}
