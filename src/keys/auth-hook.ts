// Authentication for /v1: the key from `Authorization: Bearer …` or `X-API-Key`, resolved on every request
// (no cache), then the route's scope, then the workspace's request limit.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import type { RequestLimiter } from '../limits/request-limit.js';
import type { Scope } from './scopes.js';
import type { KeyService, Principal } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; none means any valid key. */
    scope?: Scope;
  }
}

/**
 * What admission may answer any route it guards: the key sent twice (`invalid_request`), missing, malformed or not
 * valid, and the workspace's request limit. A route that needs a scope adds `insufficient_scope`.
 */
export const ADMISSION_ERRORS = [
  'invalid_request',
  'missing_api_key',
  'malformed_api_key',
  'invalid_api_key',
  'rate_limited',
] as const satisfies readonly ErrorCode[];

const isKeyHeader = (name: string) =>
  // A length test first: most headers are neither, and this runs on every request (no string made for them).
  (name.length === 13 || name.length === 9) &&
  (name.toLowerCase() === 'authorization' || name.toLowerCase() === 'x-api-key');

/**
 * How many key headers the request carries. Read from the raw header list: Node keeps only the first of two
 * `Authorization` headers and joins two `X-API-Key` headers with a comma, so the parsed headers cannot tell.
 */
export function keyHeaderCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (isKeyHeader(raw[i] ?? '')) count++;
  return count;
}

function presentedKey(request: FastifyRequest): string {
  // RFC 6750 §2: a client must not send the token more than once in a request. Picking one of two (even two
  // equal ones) would let a proxy and this service disagree on who is calling.
  if (keyHeaderCount(request) > 1) {
    throw new AppError(
      'invalid_request',
      'Send the API key once: in `Authorization: Bearer <key>` or in `X-API-Key: <key>`, not both, and not twice.',
    );
  }
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match?.[1]) {
      throw new AppError('malformed_api_key', 'The Authorization header must be `Bearer <API key>`.');
    }
    return match[1];
  }
  const value = request.headers['x-api-key'];
  if (typeof value !== 'string') {
    throw new AppError(
      'missing_api_key',
      'Send the API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`.',
    );
  }
  return value.trim();
}

export interface AdmissionDeps {
  keys: KeyService;
  limiter: RequestLimiter;
}

/**
 * Admits a presented key for the route: resolves it, holds it to the route's scope, and counts the request in its
 * workspace's window (the RateLimit headers on every counted request, then a 429 past the limit). The one way in
 * for every API that takes a key (/v1 here, the Twilio-compatible API with the key as its Basic password).
 */
export async function admitKey(
  deps: AdmissionDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
): Promise<void> {
  const scope = request.routeOptions.config.scope ?? null;
  const windowStart = deps.limiter.window();
  // One read (and on PostgreSQL one statement) resolves the key and counts the request if it may go on.
  const { principal, requestCount } = await deps.keys.admit(key, scope, windowStart);
  if (scope && !principal.scopes.includes(scope)) {
    throw new AppError(
      'insufficient_scope',
      `This key lacks the \`${scope}\` scope, which ${request.routeOptions.url} needs. Use a key that holds it.`,
    );
  }
  request.principal = principal;
  const limit = principal.requestLimitPerMinute;
  // Every counted request, the refused ones too, says where the workspace stands (before any refusal below).
  const fields = deps.limiter.fields(requestCount ?? 0, limit, windowStart);
  reply.header('ratelimit-policy', fields.policy);
  reply.header('ratelimit', fields.state);
  deps.limiter.judge(requestCount ?? 0, limit, windowStart);
}

export function authenticateRequests(deps: AdmissionDeps): onRequestHookHandler {
  return async (request, reply) => admitKey(deps, request, reply, presentedKey(request));
}

/** The authenticated principal; the hook guarantees it on /v1 routes. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('missing_api_key', 'No API key was presented.');
  return request.principal;
}
