// When a failed attempt is tried again, and after how long. One policy for every method; each call says how safe
// a repeat of it is (`Repeat`), and the policy never retries what could act twice.
import { PhoneVerifyConnectionError, type PhoneVerifyError, PhoneVerifyTimeoutError } from './errors.js';

/**
 * How safe it is to send a call's request again:
 * - `safe`: repeating it changes nothing (ping, get, cancel; send under its Idempotency-Key);
 * - `unsent`: only when the first request surely did not act: it never reached the service, or the service
 *   refused it before acting (429, which spends no attempt). This is check: a repeated check could spend a
 *   second attempt of the code.
 */
export type Repeat = 'safe' | 'unsent';

export interface RetryPolicy {
  maxRetries: number;
  /** The first backoff's ceiling; each retry doubles it (full jitter picks a delay below it). */
  baseDelayMs: number;
  /** The longest wait between attempts; a Retry-After longer than this is not waited for (the error is thrown). */
  maxDelayMs: number;
  random: () => number;
}

/** Statuses whose answer means "not now": 429 (a limit), 503 (shutting down, database unreachable). */
const LATER_STATUSES = new Set([429, 503]);

/** Whether the error may be followed by another attempt of a call with this `repeat`. */
export function isRetryable(error: PhoneVerifyError, repeat: Repeat): boolean {
  if (error instanceof PhoneVerifyConnectionError) return repeat === 'safe' || !error.requestSent;
  if (error instanceof PhoneVerifyTimeoutError) return repeat === 'safe';
  if (error.status === undefined) return false;
  // A send whose key's first request is still running: its answer will be replayed once it is stored.
  if (error.code === 'idempotency_key_in_use') return repeat === 'safe';
  if (!LATER_STATUSES.has(error.status)) return false;
  // A 503 may come after a check's attempt was counted (a database that failed mid-way): only a 429 proves the
  // check acted on nothing (docs/api.md: refused before the operation, or by the ceiling that spends no attempt).
  return repeat === 'safe' || error.status === 429;
}

/**
 * The wait before retry number `retry` (0 for the first), or undefined when the service asks for longer than the
 * policy waits. Retry-After is honoured as given; otherwise exponential backoff with full jitter.
 */
export function delayBefore(retry: number, error: PhoneVerifyError, policy: RetryPolicy): number | undefined {
  if (error.retryAfter !== undefined) {
    const ms = error.retryAfter * 1000;
    return ms > policy.maxDelayMs ? undefined : ms;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(policy.random() * ceiling);
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
