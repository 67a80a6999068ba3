// Error responses for route schemas, so the OpenAPI document lists each route's problems.
import { Problem } from './problem.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (`invalid_request`, `invalid_phone`, `unsupported_country`)',
  401: 'Missing, malformed, unknown, revoked or expired key',
  403: "The key lacks the scope (`insufficient_scope`); on send, the destination is refused (`destination_blocked`, with `reason`: `number_type`, or `range_velocity` / `low_conversion` with `Retry-After` while the pumping guard blocks the number's range or country)",
  404: 'Unknown id, or an id of another workspace (`not_found`, `no_verification`)',
  409: 'The workspace cannot use the channel (`channel_unavailable`, with `reason`); on send, the request with this Idempotency-Key is still running (`idempotency_key_in_use`, with `Retry-After`)',
  413: 'Body over 16 KiB',
  415: 'Body not application/json',
  422: 'The Idempotency-Key was used with a different request (`idempotency_key_reused`)',
  429: 'A limit was reached (`rate_limited`, with `Retry-After`)',
  503: 'Unavailable (`unavailable`, with `Retry-After`)',
};

export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    // Documented under the media type they are sent with (http/problem.ts), not application/json.
    statuses.map((status) => [
      status,
      {
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/problem+json': { schema: Problem } },
      },
    ]),
  );
}
