// When a failed webhook is tried again: the Standard Webhooks schedule (about 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 10 h after the attempts before), each delay spread by up to 20 % either way so that the retries of many
// messages to one recovering endpoint do not arrive together. After the last, the message has failed.
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const RETRY_DELAYS_MS = [
  5_000,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
] as const;

/** Attempts one message gets at most: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Five days of failing attempts disable an endpoint. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;

/** The delay before the attempt after `failed` failed ones; undefined when none is left. */
export function retryDelayMs(failed: number, random: () => number): number | undefined {
  const base = RETRY_DELAYS_MS[failed - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.8 + 0.4 * random()));
}
