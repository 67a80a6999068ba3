// The HTTP plumbing every HTTP carrier adapter shares: one POST within the carrier timeout (CARRIER_TIMEOUT_MS),
// the body read within the same deadline and up to a size, JSON bodies read defensively, the answers worth
// retrying (no answer, 408, 429, 5xx) turned into TransientDeliveryError with the carrier's Retry-After, and the
// one rule by which an answer that is not a success becomes error_message (carrierErrorMessage).
import { carrierText } from '../carrier-text.js';
import { TransientDeliveryError } from '../provider.js';

/** The adapters' timeout where none is configured. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * A carrier's answers are a few kilobytes; a body larger than this is not read further (nor parsed): whatever sent
 * it, it is not the carrier's documented answer, and it costs no memory.
 */
export const MAX_REPLY_BYTES = 1024 * 1024;

/** A carrier's error code is short (Twilio 21211, Telnyx 40310, Vonage 1050); longer ones are cut. */
const MAX_CODE = 40;

/** Why a request got no complete answer. */
export interface NoAnswer {
  /** connect: no response at all (refused, reset, timed out); read: the body was cut short. */
  stage: 'connect' | 'read';
  timedOut: boolean;
  /** "timed out", the socket's error code (ECONNREFUSED) or the error's name. */
  detail: string;
}

export interface CarrierReply {
  status: number;
  ok: boolean;
  headers: Headers;
  /** The body as received; '' when it was larger than MAX_REPLY_BYTES. */
  text: string;
  /** The body as a JSON object; undefined when it is empty, not JSON, or not an object. */
  body: Record<string, unknown> | undefined;
}

export interface CarrierPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The words of the TransientDeliveryError thrown when there is no complete answer. */
  noAnswer(why: NoAnswer): string;
}

/** One POST; throws TransientDeliveryError when no complete answer came (nothing says the carrier refused). */
export async function postToCarrier(request: CarrierPost): Promise<CarrierReply> {
  const result = await exchange(request.url, {
    init: { method: 'POST', headers: request.headers, body: request.body },
    timeoutMs: request.timeoutMs,
    fetch: request.fetch,
  });
  if ('noAnswer' in result) throw new TransientDeliveryError(request.noAnswer(result.noAnswer));
  return result.reply;
}

/** A request's complete answer, or why none came. */
export type Exchange = { reply: CarrierReply } | { noAnswer: NoAnswer };

/**
 * One request and its body, both within `timeoutMs` (DEFAULT_TIMEOUT_MS), the body read up to MAX_REPLY_BYTES.
 * Never throws: no complete answer is a NoAnswer.
 */
export async function exchange(
  url: string,
  options: { init: RequestInit; timeoutMs?: number; fetch?: typeof fetch },
): Promise<Exchange> {
  const doFetch = options.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, {
      ...options.init,
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
  } catch (err) {
    return { noAnswer: noAnswer('connect', err) };
  }
  let text: string;
  try {
    text = await readText(res, MAX_REPLY_BYTES);
  } catch (err) {
    return { noAnswer: noAnswer('read', err) };
  }
  return { reply: { status: res.status, ok: res.ok, headers: res.headers, text, body: jsonObject(text) } };
}

/** The body as text; '' when it is larger than `limit` bytes (the rest is not read). */
async function readText(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return '';
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** What an adapter reads from the carrier's documented JSON error: its code and its words, in order. */
export interface CarrierError {
  /** Twilio's `code`, the first of Telnyx's `errors[].code`, the number in Vonage's `type`. */
  code?: unknown;
  /** Twilio's `message`; Telnyx's `title` and `detail`; Vonage's `title` and `detail`, … */
  words?: readonly unknown[];
}

/**
 * error_message for a carrier's answer that is not a success, the one rule every HTTP adapter follows:
 * `<who> HTTP <status> <code>: <words>`, where code and words are only the carrier's documented error fields
 * (`read` picks them from the body parsed as a JSON object), each made printable and bounded (carrierText), and
 * the whole at most MAX_CARRIER_TEXT characters. An answer without them (an HTML page from a proxy, plain text,
 * JSON of another shape, an empty or huge body) is only `<who> HTTP <status>`: its text is never copied.
 */
export function carrierErrorMessage(
  who: string,
  reply: Pick<CarrierReply, 'status' | 'body'>,
  read: (body: Record<string, unknown>) => CarrierError | undefined,
): string {
  const error = reply.body ? read(reply.body) : undefined;
  const code = carrierText(error?.code, MAX_CODE);
  const words = (error?.words ?? [])
    .map((w) => carrierText(w))
    .filter((w) => w !== '')
    .join(': ');
  const status = `${who} HTTP ${reply.status}`;
  return carrierText(`${status}${code ? ` ${code}` : ''}${words ? `: ${words}` : ''}`);
}

/** 408, 429 and 5xx: the carrier may take the same request later. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The TransientDeliveryError for a reply worth retrying, carrying its Retry-After. */
export function transientReply(reply: CarrierReply, message: string): TransientDeliveryError {
  return new TransientDeliveryError(message, retryAfterMs(reply.headers.get('retry-after')));
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A JSON object, or undefined for anything else (empty, not JSON, an array, a scalar). */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function noAnswer(stage: NoAnswer['stage'], err: unknown): NoAnswer {
  const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
  let detail = 'unknown error';
  if (timedOut) detail = 'timed out';
  else if (err instanceof Error) {
    const cause = (err as { cause?: { code?: unknown } }).cause;
    detail = typeof cause?.code === 'string' ? cause.code : err.name;
  }
  return { stage, timedOut, detail };
}
