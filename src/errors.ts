// One catalogue of error codes -> HTTP status and title. Code throws AppError; http/problem.ts renders it.
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_phone: { status: 400, title: 'Invalid phone number' },
  unsupported_country: { status: 400, title: 'Unsupported country' },
  missing_api_key: { status: 401, title: 'Missing API key' },
  malformed_api_key: { status: 401, title: 'Malformed API key' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  invalid_metrics_token: { status: 401, title: 'Invalid metrics token' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  invalid_signature: { status: 403, title: 'Invalid signature' },
  destination_blocked: { status: 403, title: 'Destination blocked' },
  not_found: { status: 404, title: 'Not found' },
  no_verification: { status: 404, title: 'No verification' },
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  channel_unavailable: { status: 409, title: 'Channel unavailable' },
  key_limit_reached: { status: 409, title: 'Key limit reached' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * The command line's own codes, beside the catalogue's (which its commands' failures carry): what `--json` prints
 * for a command called wrongly (exit 2) or a bad environment (exit 2). See docs/operations.md, "CLI errors".
 */
export const CLI_ERROR_CATALOGUE = {
  invalid_usage: { title: 'Invalid usage' },
  invalid_configuration: { title: 'Invalid configuration' },
  // `carrier test`: the carrier answered, and refused the credentials; no usable answer came.
  credentials_refused: { title: 'Credentials refused' },
  carrier_unreachable: { title: 'Carrier unreachable' },
} as const;

export type CliErrorCode = keyof typeof CLI_ERROR_CATALOGUE;

export interface FieldError {
  field: string;
  message: string;
}

export interface ProblemExtras {
  errors?: FieldError[];
  reason?: string;
  retry_after?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ProblemExtras;

  constructor(code: ErrorCode, detail: string, extras: ProblemExtras = {}) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.extras = extras;
  }
}

/** A 400 invalid_request naming one field. */
export function invalidField(field: string, message: string): AppError {
  return new AppError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });
}
