// Authentication for /v1: the key from `Authorization: Bearer …` or `X-API-Key`, resolved on every request
// (no cache), then the route's scope, then the workspace's request limit.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../errors.js';
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

function presentedKey(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match?.[1]) {
      throw new AppError('malformed_api_key', 'The Authorization header must be `Bearer <API key>`.');
    }
    return match[1];
  }
  const header = request.headers['x-api-key'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) {
    throw new AppError(
      'missing_api_key',
      'Send the API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`.',
    );
  }
  return value.trim();
}

export function authenticateRequests(deps: {
  keys: KeyService;
  limiter: RequestLimiter;
}): onRequestHookHandler {
  return async (request) => {
    const scope = request.routeOptions.config.scope ?? null;
    const windowStart = deps.limiter.window();
    // One read (and on PostgreSQL one statement) resolves the key and counts the request if it may go on.
    const { principal, requestCount } = await deps.keys.admit(presentedKey(request), scope, windowStart);
    if (scope && !principal.scopes.includes(scope)) {
      throw new AppError(
        'insufficient_scope',
        `This key lacks the \`${scope}\` scope, which ${request.routeOptions.url} needs. Use a key that holds it.`,
      );
    }
    request.principal = principal;
    deps.limiter.judge(requestCount ?? 0, principal.requestLimitPerMinute, windowStart);
  };
}

/** The authenticated principal; the hook guarantees it on /v1 routes. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('missing_api_key', 'No API key was presented.');
  return request.principal;
}
