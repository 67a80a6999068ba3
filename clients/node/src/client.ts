// PhoneVerify: one method per endpoint of /v1 (docs/api.md), typed by the service's own OpenAPI document.
import { randomUUID } from 'node:crypto';
import { VERSION } from './generated/version.js';
import { type CallOptions, call, type Transport } from './http.js';
import type { CheckRequest, CheckResult, PingResult, SendRequest, Verification } from './types.js';

export interface PhoneVerifyOptions {
  /** An API key (`pv_live_…`), made with `phone-verify key create` or on the dashboard. */
  apiKey: string;
  /** Where the service is, e.g. `https://verify.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Each attempt's time limit in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Retries at most per call, after the first attempt (default 2; 0 turns retries off). */
  maxRetries?: number;
  /** The first backoff's ceiling in milliseconds (default 500); it doubles with each retry. */
  retryBaseDelayMs?: number;
  /** The longest wait between attempts (default 30 000); a longer Retry-After is thrown, not waited for. */
  maxRetryDelayMs?: number;
  /** A fetch of your own (a proxy agent, a test double); default: Node's global fetch. */
  fetch?: typeof globalThis.fetch;
}

export interface SendOptions extends CallOptions {
  /**
   * The send's Idempotency-Key (1 to 255 printable ASCII characters). Default: a new UUID per call, reused by
   * that call's retries. Give your own to make a send safe to repeat across calls (a job retried by your queue):
   * the same key with the same body within 24 hours gets the first answer and sends nothing.
   */
  idempotencyKey?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RETRIES = 2;

function checkedOptions(options: PhoneVerifyOptions): PhoneVerifyOptions {
  if (typeof options?.apiKey !== 'string' || options.apiKey === '')
    throw new TypeError('PhoneVerify: apiKey is required');
  if (typeof options.baseUrl !== 'string') throw new TypeError('PhoneVerify: baseUrl is required');
  const url = new URL(options.baseUrl); // throws on a URL that is not one
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError('PhoneVerify: baseUrl must be http:// or https://');
  for (const name of ['timeoutMs', 'maxRetries', 'retryBaseDelayMs', 'maxRetryDelayMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new TypeError(`PhoneVerify: ${name} must be a whole number >= 0`);
  }
  return options;
}

export class PhoneVerify {
  readonly #transport: Transport;

  constructor(options: PhoneVerifyOptions) {
    const o = checkedOptions(options);
    this.#transport = {
      baseUrl: o.baseUrl.replace(/\/+$/, ''),
      apiKey: o.apiKey,
      timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: {
        maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
        baseDelayMs: o.retryBaseDelayMs ?? 500,
        maxDelayMs: o.maxRetryDelayMs ?? 30_000,
        random: Math.random,
      },
      fetch: o.fetch ?? globalThis.fetch,
      userAgent: `phone-verify-node/${VERSION} node/${process.versions.node}`,
    };
  }

  /** Checks the key (free, no side effects): the first call to make. */
  ping(options?: CallOptions): Promise<PingResult> {
    return call(this.#transport, { method: 'GET', path: '/v1/ping', repeat: 'safe' }, options);
  }

  /**
   * Sends a code by voice (default) or SMS. Retried safely: every attempt of one call carries the same
   * Idempotency-Key, so the service sends at most once.
   */
  send(body: SendRequest, options: SendOptions = {}): Promise<Verification> {
    const { idempotencyKey = randomUUID(), ...rest } = options;
    return call(
      this.#transport,
      {
        method: 'POST',
        path: '/v1/otp/send',
        body,
        headers: { 'idempotency-key': idempotencyKey },
        repeat: 'safe',
      },
      rest,
    );
  }

  /**
   * Checks a code. A wrong code is no error: branch on `verified`. Retried only when the request surely did not
   * act (it never reached the service, or was answered 429), as a repeat could spend a second attempt.
   */
  check(body: CheckRequest, options?: CallOptions): Promise<CheckResult> {
    return call(this.#transport, { method: 'POST', path: '/v1/otp/check', body, repeat: 'unsent' }, options);
  }

  /** Reads a verification. */
  get(id: string, options?: CallOptions): Promise<Verification> {
    return call(
      this.#transport,
      { method: 'GET', path: `/v1/otp/${pathSegment(id)}`, repeat: 'safe' },
      options,
    );
  }

  /** Cancels a pending verification; a finished one is returned unchanged (so a repeat is safe). */
  cancel(id: string, options?: CallOptions): Promise<Verification> {
    return call(
      this.#transport,
      { method: 'POST', path: `/v1/otp/${pathSegment(id)}/cancel`, repeat: 'safe' },
      options,
    );
  }
}

function pathSegment(id: string): string {
  if (typeof id !== 'string' || id === '') throw new TypeError('PhoneVerify: a verification id is required');
  return encodeURIComponent(id);
}
