// What each code of the error catalogue (errors.ts) means and what to do about it: the errors reference page
// (GET /docs/errors) and the OpenAPI document's error examples are built from this, once, at start-up. Keyed by
// ErrorCode, so a code added to the catalogue without its entry here does not compile.
import type { ErrorCode, ProblemExtras } from './errors.js';

export interface ErrorReference {
  /** What happened, in a sentence or two. */
  meaning: string;
  /** What the caller should do. */
  action: string;
  /** A realistic answer: its `detail` and extras (the OpenAPI document's example of the code). */
  example: { detail: string } & ProblemExtras;
}

export const ERROR_REFERENCE: Readonly<Record<ErrorCode, ErrorReference>> = {
  invalid_request: {
    meaning:
      'The request is not what the endpoint takes: a field missing, of the wrong type, out of bounds or unknown; a body that is not JSON; a URL that cannot be decoded; the API key sent twice; or a malformed `Idempotency-Key`. `errors` names each field at fault.',
    action:
      'Correct the request as `detail` and `errors` say. Sending it again unchanged gets the same answer.',
    example: { detail: 'phone is required', errors: [{ field: 'phone', message: 'is required' }] },
  },
  invalid_phone: {
    meaning:
      'The phone number is not a valid number: not a number at all, the wrong length for its country, or a national number given without `country`.',
    action:
      'Ask the user to correct the number. Give it in E.164 form (`+61491570156`), or as a national number with `country`.',
    example: { detail: '"+6149157" is not a valid phone number.' },
  },
  unsupported_country: {
    meaning:
      "The number is valid but of a country codes are not sent to: outside the service's supported countries (AU, US, CA, GB, NZ), or outside the workspace's allowed countries.",
    action:
      'Tell the user codes cannot be sent to numbers of that country. An operator chooses the allowed countries.',
    example: { detail: 'Numbers of FR are not supported here; allowed: AU, US, CA, GB, NZ.' },
  },
  missing_api_key: {
    meaning: 'No API key was sent.',
    action: 'Send the key as `Authorization: Bearer <key>` or as `X-API-Key: <key>`.',
    example: { detail: 'Send the API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`.' },
  },
  malformed_api_key: {
    meaning:
      'The `Authorization` header is not `Bearer <key>`, or the key is not in the shape of a key (`pv_live_…`).',
    action: 'Check the header and that the key was copied whole.',
    example: { detail: 'The Authorization header must be `Bearer <API key>`.' },
  },
  invalid_api_key: {
    meaning: 'The key is not a key of this service: unknown, revoked or expired.',
    action:
      'Use a current key (create one in the dashboard or with `phone-verify key create`). Retrying will not help.',
    example: { detail: 'The API key is not valid.' },
  },
  invalid_credentials: {
    meaning: "The dashboard's sign-in: the e-mail address or the password is wrong.",
    action: 'Check both. Repeated failures are answered `rate_limited` for a few minutes.',
    example: { detail: 'The e-mail address or the password is wrong.' },
  },
  invalid_metrics_token: {
    meaning: '`GET /metrics` was requested without the right `Authorization: Bearer` token.',
    action: "Send the process's METRICS_TOKEN as `Authorization: Bearer <token>`.",
    example: { detail: 'GET /metrics needs Authorization: Bearer METRICS_TOKEN.' },
  },
  insufficient_scope: {
    meaning: 'The key is valid but lacks the scope the endpoint needs (`otp` for `/v1/otp/*`).',
    action: 'Use a key that holds the scope.',
    example: {
      detail: 'This key lacks the `otp` scope, which /v1/otp/send needs. Use a key that holds it.',
    },
  },
  invalid_signature: {
    meaning: "A carrier's status callback that is not signed by the carrier account it is addressed to.",
    action:
      "Carriers only: check the carrier account's credentials and its callback settings at the carrier.",
    example: { detail: 'The request is not signed by this carrier account.' },
  },
  destination_blocked: {
    meaning:
      "Codes are not sent to this number. `reason` says why: `number_type` (a premium-rate, shared-cost or similar number: never), or `range_velocity` / `low_conversion` (the pumping guard blocks the number's range or country for a while, with `Retry-After`). Nothing was sent.",
    action:
      'Tell the user codes cannot be sent to the number. A block ends by itself after `Retry-After` seconds; an operator can lift it or allow-list the range.',
    example: {
      detail:
        'Codes to numbers starting +6149157 are blocked until 2026-11-24T23:10:00.000Z: too many numbers of the range were sent codes in a short time.',
      reason: 'range_velocity',
      retry_after: 3600,
    },
  },
  not_found: {
    meaning:
      'Nothing is there: an unknown id, an id of another workspace (the same answer, so ids cannot be probed), or an address the service does not serve.',
    action: 'Check the id and the path.',
    example: { detail: 'No verification ver_0VbvA1b2C3d4E5f6G7h8I9j0.' },
  },
  no_verification: {
    meaning: 'A check by `phone`: the number has no verification in this workspace.',
    action: 'Send a code to the number first, or check by `verification_id`.',
    example: { detail: 'No verification for +61491570156.' },
  },
  request_timeout: {
    meaning:
      'The request did not arrive whole within the time the service gives it (REQUEST_TIMEOUT_MS, 30 s by default); the connection is closed.',
    action: 'Send it again on a new connection; check the network between the client and the service.',
    example: { detail: 'The request did not arrive whole in time; the connection is closed.' },
  },
  conflict: {
    meaning:
      'The request conflicts with the present state: something it relies on (its workspace, a number, a carrier account) was removed while it ran, or what it would create exists already. Nothing was kept.',
    action: 'Read the current state again, then repeat the request if it still makes sense.',
    example: {
      detail:
        'Something this request relies on (its workspace, a number or a carrier account) was removed while it ran; nothing was kept.',
    },
  },
  channel_unavailable: {
    meaning:
      'The workspace cannot send on the channel. `reason`: `no_sender_number` (no number at all), `no_voice_number` (no number whose carrier places calls), `no_mobile_number` (SMS needs a mobile number).',
    action: 'Use the other channel, or have an operator add a suitable number to the workspace.',
    example: {
      detail:
        'SMS needs a mobile number on the workspace, and it has only landline numbers. Use channel "voice" or add a mobile number.',
      reason: 'no_mobile_number',
    },
  },
  key_limit_reached: {
    meaning: 'The workspace already holds the most active API keys it may.',
    action: 'Revoke a key it no longer needs, then create the new one.',
    example: {
      detail:
        'Workspace ws_0VbvA1b2C3d4E5f6G7h8I9j0 already has 25 active keys, the most it may hold. Revoke one first.',
    },
  },
  idempotency_key_in_use: {
    meaning: 'A request with this `Idempotency-Key` is still being processed.',
    action: 'Retry after `Retry-After` seconds with the same key and body: you then get its answer.',
    example: {
      detail: 'A request with this Idempotency-Key is still being processed. Retry after it has finished.',
      retry_after: 1,
    },
  },
  payload_too_large: {
    meaning:
      'The request body is larger than the endpoint accepts (16 KiB for the API; `metadata` at most 4 KiB).',
    action: 'Send a smaller body.',
    example: { detail: 'The request body is larger than this endpoint accepts (16 KiB for the API).' },
  },
  unsupported_media_type: {
    meaning: 'The request body is not `application/json`.',
    action: 'Send the body as JSON with `Content-Type: application/json`.',
    example: { detail: 'Send the request body as Content-Type: application/json.' },
  },
  idempotency_key_reused: {
    meaning: 'This `Idempotency-Key` was used in the last 24 hours with a different request.',
    action: 'Use a new key for a new request; reuse a key only to retry the very same request.',
    example: {
      detail:
        'This Idempotency-Key was used in the last 24 hours with a different request. Use a new key for a new request.',
    },
  },
  rate_limited: {
    meaning:
      "A limit was reached: the workspace's requests a minute, the codes sent to one number in a window, the failed checks of one number (its failed-guess ceiling), or the dashboard's failed sign-ins. `Retry-After` (and `retry_after`) say when to try again.",
    action: 'Wait `Retry-After` seconds before trying again; do not retry at once.',
    example: { detail: 'At most 5 codes may be sent to one number in 10 minutes.', retry_after: 412 },
  },
  headers_too_large: {
    meaning:
      'The request headers are larger than the service reads (16 KiB in all); the connection is closed.',
    action: 'Send fewer or smaller headers (cookies are the usual cause).',
    example: { detail: 'The request headers are larger than this service reads (16 KiB in all).' },
  },
  internal_error: {
    meaning:
      "Something went wrong on the service's side. The body says nothing more; the logs do, under `request_id`.",
    action:
      'Retry later (a send with an `Idempotency-Key` is safe to retry). If it persists, report the `request_id`.',
    example: { detail: 'Something went wrong on our side. The request id identifies it in our logs.' },
  },
  unavailable: {
    meaning:
      'The service cannot answer now: its database is unreachable or busy, or the process is shutting down or not ready.',
    action:
      'Retry after `Retry-After` seconds (a send with an `Idempotency-Key` is safe to retry), on another instance if there is one.',
    example: { detail: 'The database is unreachable or busy; try again shortly.', retry_after: 2 },
  },
};
