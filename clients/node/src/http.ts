// One attempt of a request, and the loop of attempts under the retry policy. Every answer that is not a success
// becomes a typed error here, and nowhere else.
import {
  PhoneVerifyApiError,
  PhoneVerifyConnectionError,
  PhoneVerifyError,
  PhoneVerifyTimeoutError,
} from './errors.js';
import { delayBefore, isRetryable, type Repeat, type RetryPolicy, sleep } from './retry.js';
import type { Problem } from './types.js';

export interface Transport {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  fetch: typeof globalThis.fetch;
  userAgent: string;
}

export interface CallOptions {
  /** This call's time limit for each attempt, in milliseconds (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** This call's retries at most (default: the client's `maxRetries`). */
  maxRetries?: number;
  /** Aborts the call, its waits between attempts included. */
  signal?: AbortSignal;
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  repeat: Repeat;
}

/** Network failures where the request surely never left: nothing was connected. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Retry-After in seconds: the problem's `retry_after`, else the header (seconds or an HTTP date). */
function retryAfterOf(response: Response, problem: Partial<Problem> | undefined): number | undefined {
  if (typeof problem?.retry_after === 'number') return problem.retry_after;
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function isProblem(body: unknown): body is Problem {
  return typeof body === 'object' && body !== null && typeof (body as Problem).code === 'string';
}

function errorOf(response: Response, text: string): PhoneVerifyApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (!isProblem(body)) {
    return new PhoneVerifyApiError(`phone-verify answered ${response.status} without a problem body`, {
      code: 'unexpected_response',
      status: response.status,
      requestId,
      retryAfter: retryAfterOf(response, undefined),
    });
  }
  return new PhoneVerifyApiError(`${body.code}: ${body.detail}`, {
    code: body.code,
    status: response.status,
    requestId: body.request_id ?? requestId,
    retryAfter: retryAfterOf(response, body),
    detail: body.detail,
    errors: body.errors,
    reason: body.reason,
    problem: body,
  });
}

async function attempt<T>(transport: Transport, request: Request, options: CallOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const headers: Record<string, string> = {
    authorization: `Bearer ${transport.apiKey}`,
    accept: 'application/json',
    'user-agent': transport.userAgent,
    ...request.headers,
  };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await transport.fetch(`${transport.baseUrl}${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new PhoneVerifyTimeoutError(timeoutMs, error);
    const code = causeCode(error);
    throw new PhoneVerifyConnectionError(
      `Could not reach phone-verify at ${transport.baseUrl}${code ? ` (${code})` : ''}`,
      !(code !== undefined && NOT_SENT.has(code)),
      error,
    );
  }
  if (!response.ok) throw errorOf(response, text);
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new PhoneVerifyApiError(`phone-verify answered ${response.status} with a body that is not JSON`, {
      code: 'unexpected_response',
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
      cause: error,
    });
  }
}

/** The request, tried again under the retry policy while its failures allow. */
export async function call<T>(transport: Transport, request: Request, options: CallOptions = {}): Promise<T> {
  const maxRetries = options.maxRetries ?? transport.retry.maxRetries;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt<T>(transport, request, options);
    } catch (error) {
      if (!(error instanceof PhoneVerifyError) || retry >= maxRetries) throw error;
      if (!isRetryable(error, request.repeat)) throw error;
      const delay = delayBefore(retry, error, transport.retry);
      if (delay === undefined) throw error;
      await sleep(delay, options.signal);
    }
  }
}
