// Errors of the Twilio-compatible API: Twilio's error body `{ code, message, more_info, status }`, with the codes of
// Twilio's error dictionary, which SDKs raise as RestException (`status`, `code`). Our catalogue (src/errors.ts)
// maps to them in one table; the facade's own refusals (a check past its attempts) are TwilioApiErrors.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import { toAppError } from '../http/problem.js';

/** Where a request was refused: a 429 is a different limit in each. */
export type TwilioOperation = 'admission' | 'send' | 'check';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The Twilio operation a route is (its 429s are that operation's limit). */
    twilio?: TwilioOperation;
  }
}

export class TwilioApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'TwilioApiError';
  }
}

interface Mapped {
  status: number;
  code: number;
  /** Replaces our detail where it speaks of /v1's wire format. */
  message?: string;
}

const INVALID = 60200; // Invalid parameter
const AUTHENTICATE = { status: 401, code: 20003 }; // Permission denied: bad credentials
const NOT_FOUND = { status: 404, code: 20404 };

/** Our error codes -> Twilio's. Codes no facade route can meet keep their HTTP status with 60200. */
export const TWILIO_ERRORS: Record<ErrorCode, Mapped> = {
  invalid_request: { status: 400, code: INVALID },
  invalid_phone: { status: 400, code: INVALID },
  // Verify's geo permissions: the destination's country is not allowed.
  unsupported_country: { status: 403, code: 60605 },
  missing_api_key: AUTHENTICATE,
  malformed_api_key: AUTHENTICATE,
  invalid_api_key: AUTHENTICATE,
  invalid_credentials: AUTHENTICATE,
  invalid_metrics_token: AUTHENTICATE,
  insufficient_scope: { status: 403, code: 20403 },
  invalid_signature: { status: 403, code: 20403 },
  // Fraud Guard's block: the pumping guard refused the number's range.
  destination_blocked: { status: 403, code: 60410 },
  not_found: NOT_FOUND,
  no_verification: NOT_FOUND,
  request_timeout: { status: 408, code: INVALID },
  conflict: { status: 409, code: INVALID },
  // Delivery channel disabled: the workspace has no number that can send on it.
  channel_unavailable: { status: 400, code: 60223 },
  key_limit_reached: { status: 409, code: INVALID },
  idempotency_key_in_use: { status: 409, code: INVALID },
  payload_too_large: {
    status: 413,
    code: INVALID,
    message: 'The request body is larger than the Twilio-compatible API accepts (4 KiB).',
  },
  unsupported_media_type: {
    status: 415,
    code: INVALID,
    message:
      'Send the parameters form-encoded (Content-Type: application/x-www-form-urlencoded), as the SDKs do.',
  },
  idempotency_key_reused: { status: 422, code: INVALID },
  // The workspace's request limit (Too many requests); on a send or a check, that operation's limit (below).
  rate_limited: { status: 429, code: 20429 },
  headers_too_large: { status: 431, code: INVALID },
  internal_error: { status: 500, code: 20500 },
  unavailable: { status: 503, code: 20503 },
};

/** A refused send is Max send attempts reached; a refused check is Max check attempts reached. */
const RATE_LIMIT_CODES: Record<TwilioOperation, number> = { admission: 20429, send: 60203, check: 60202 };

/** Our field names -> the Twilio parameters they came from. */
const PARAMETERS: Record<string, string> = {
  phone: 'To',
  channel: 'Channel',
  brand_name: 'CustomFriendlyName',
  code: 'Code',
  verification_id: 'VerificationSid',
};

/** The path Twilio's 404 message names: the resource's, as the SDK requested it below its version. */
function resourcePath(request: FastifyRequest): string {
  return (request.url.split('?')[0] ?? '').replace(/^\/twilio\/v2/, '') || '/';
}

function messageOf(error: AppError, mapped: Mapped, request: FastifyRequest): string {
  if (mapped.message) return mapped.message;
  if (mapped.code === NOT_FOUND.code) return `The requested resource ${resourcePath(request)} was not found`;
  if (mapped.code !== INVALID || error.status !== 400) return error.message;
  const first = error.extras.errors?.[0];
  const field = first?.field ?? (error.code === 'invalid_phone' ? 'phone' : undefined);
  if (field === undefined) return `Invalid parameter: ${error.message}`;
  return `Invalid parameter: ${PARAMETERS[field] ?? field}: ${first?.message ?? error.message}`;
}

/** Any error as Twilio's: a TwilioApiError as it is, else ours (or the framework's) by the table. */
export function asTwilioError(
  error: unknown,
  request: FastifyRequest,
  operation: TwilioOperation | undefined,
): TwilioApiError {
  if (error instanceof TwilioApiError) return error;
  const ours = error instanceof AppError ? error : toAppError(error as FastifyError);
  const mapped = TWILIO_ERRORS[ours.code];
  const code = ours.code === 'rate_limited' ? RATE_LIMIT_CODES[operation ?? 'admission'] : mapped.code;
  return new TwilioApiError(mapped.status, code, messageOf(ours, mapped, request), ours.extras.retry_after);
}

export function sendTwilioError(reply: FastifyReply, error: TwilioApiError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  // As Twilio does: a client told which scheme to answer with.
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="phone-verify"');
  return reply
    .code(error.status)
    .type('application/json')
    .send({
      code: error.code,
      message: error.message,
      more_info: `https://www.twilio.com/docs/errors/${error.code}`,
      status: error.status,
    });
}

/** The /twilio plugin's error handler: every refusal in Twilio's body, 5xx logged as everywhere else. */
export function answerTwilioError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const twilio = asTwilioError(error, request, request.routeOptions.config.twilio);
  if (twilio.status === 503) request.log.warn({ err: error }, 'request refused: unavailable');
  else if (twilio.status >= 500) request.log.error({ err: error }, 'request failed');
  return sendTwilioError(reply, twilio);
}

/** What the router refuses under /twilio (a URL it cannot decode, an over-long segment), as Twilio's body. */
export function answerTwilioFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  reply.header('x-request-id', request.id);
  sendTwilioError(reply, asTwilioError(error, request, undefined));
}
