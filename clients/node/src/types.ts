// The API's types, every one resolved through the generated `paths` and `webhooks` (src/generated/openapi.ts, made
// from the service's OpenAPI document at build time), so they follow the document whatever its schemas are named.
import type { paths, webhooks } from './generated/openapi.js';

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ProblemOf<R> = R extends { content: { 'application/problem+json': infer B } } ? B : never;
type RequestOf<O> = O extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

type SendOperation = paths['/v1/otp/send']['post'];
type CheckOperation = paths['/v1/otp/check']['post'];

/** A verification, as send, read and cancel answer (GET /v1/otp/{id}). */
export type Verification = JsonOf<SendOperation['responses'][201]>;
/** Its delivery diagnostics: informational, may change; do not branch on them. */
export type Delivery = Verification['delivery'];
/** A verification's status. */
export type VerificationStatus = Verification['status'];
/** `voice` or `sms`. */
export type Channel = Verification['channel'];
/** The body of POST /v1/otp/send. */
export type SendRequest = RequestOf<SendOperation>;
/** The body of POST /v1/otp/check: `code` and exactly one of `verification_id` (preferred) and `phone`. */
export type CheckRequest = RequestOf<CheckOperation>;
/** The answer of POST /v1/otp/check. A wrong code is no error: branch on `verified`. */
export type CheckResult = JsonOf<CheckOperation['responses'][200]>;
/** The answer of GET /v1/ping. */
export type PingResult = JsonOf<paths['/v1/ping']['get']['responses'][200]>;
/** An RFC 9457 problem, the body of every error answer. */
export type Problem = ProblemOf<SendOperation['responses'][400]>;
/** One entry of a problem's `errors`: a field and what is wrong with it. */
export type FieldError = NonNullable<Problem['errors']>[number];

/** The event types the service sends to webhook endpoints. */
export type WebhookEventType = keyof webhooks;
/** A webhook event's body, by type (`data` is the Verification at the moment of the change). */
export type WebhookEventOf<T extends WebhookEventType> = JsonOf<webhooks[T]['post']['requestBody']>;
/** Any event of the document's `webhooks`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];
/**
 * The dashboard's "Send test event" (docs/webhooks.md): sent to one endpoint, whatever its filter. It is not a
 * state change, so the document's `webhooks` do not list it.
 */
export interface WebhookTestEvent {
  type: 'webhook.test';
  timestamp: string;
  data: { endpoint_id: string; message: string };
}

/**
 * The problem codes docs/api.md lists. `code` may hold others (new conditions are additive within v1): compare
 * against these, and treat an unknown one as its HTTP status says.
 */
export type ProblemCode =
  | 'invalid_request'
  | 'invalid_phone'
  | 'unsupported_country'
  | 'missing_api_key'
  | 'malformed_api_key'
  | 'invalid_api_key'
  | 'insufficient_scope'
  | 'destination_blocked'
  | 'not_found'
  | 'no_verification'
  | 'request_timeout'
  | 'channel_unavailable'
  | 'idempotency_key_in_use'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'headers_too_large'
  | 'internal_error'
  | 'unavailable';
