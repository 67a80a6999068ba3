// The client's typed errors. One base class, so `catch (e) { if (e instanceof PhoneVerifyError) … }` sees every
// failure of a call; its subclasses say what kind: the service answered with a problem, the network failed, the
// call timed out. Webhook verification has its own error (it is no call).
import type { FieldError, Problem, ProblemCode } from './types.js';

/** Codes the client itself gives to failures that are not problems from the service. */
export type ClientErrorCode = 'connection_error' | 'timeout' | 'unexpected_response';

/** Every failure of a call: the service's problem, a network error, a timeout. Branch on `code`. */
export class PhoneVerifyError extends Error {
  override name = 'PhoneVerifyError';
  /** The problem's `code` (docs/api.md), or the client's own for failures without an answer. */
  readonly code: ProblemCode | ClientErrorCode | (string & {});
  /** The HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** The answer's request id (`req_…`): give it to the service's operators to find the request in the logs. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, from the problem's `retry_after` or the `Retry-After` header. */
  readonly retryAfter: number | undefined;
  /** The problem's human-readable detail (never branch on it). */
  readonly detail: string | undefined;
  /** The problem's field errors: each bad field of a 400 `invalid_request`. Empty otherwise. */
  readonly errors: readonly FieldError[];
  /** The problem's `reason` (`destination_blocked`, `channel_unavailable`). */
  readonly reason: string | undefined;
  /** The whole problem body, when the service sent one. */
  readonly problem: Problem | undefined;

  constructor(
    message: string,
    fields: {
      code: PhoneVerifyError['code'];
      status?: number;
      requestId?: string;
      retryAfter?: number;
      detail?: string;
      errors?: readonly FieldError[];
      reason?: string;
      problem?: Problem;
      cause?: unknown;
    },
  ) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = fields.code;
    this.status = fields.status;
    this.requestId = fields.requestId;
    this.retryAfter = fields.retryAfter;
    this.detail = fields.detail;
    this.errors = fields.errors ?? [];
    this.reason = fields.reason;
    this.problem = fields.problem;
  }
}

/** The service answered with an error status (an RFC 9457 problem, or an answer that was not one). */
export class PhoneVerifyApiError extends PhoneVerifyError {
  override name = 'PhoneVerifyApiError';
  declare readonly status: number;
}

/**
 * No answer: the connection could not be made or broke. `requestSent` is false only when the request surely never
 * reached the service (the connection was refused or the host not found).
 */
export class PhoneVerifyConnectionError extends PhoneVerifyError {
  override name = 'PhoneVerifyConnectionError';
  readonly requestSent: boolean;
  constructor(message: string, requestSent: boolean, cause: unknown) {
    super(message, { code: 'connection_error', cause });
    this.requestSent = requestSent;
  }
}

/** No answer within `timeoutMs` (one attempt's time; see the README's "Timeouts"). */
export class PhoneVerifyTimeoutError extends PhoneVerifyError {
  override name = 'PhoneVerifyTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number, cause: unknown) {
    super(`No answer from phone-verify within ${timeoutMs} ms`, { code: 'timeout', cause });
    this.timeoutMs = timeoutMs;
  }
}

/** Why a webhook was refused by verifyWebhook. */
export type WebhookErrorCode =
  | 'missing_header'
  | 'invalid_header'
  | 'invalid_secret'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_payload';

/** A webhook that is not provably from phone-verify (or not now): answer it 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
