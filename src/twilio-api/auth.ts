// Authentication for the Twilio-compatible API: HTTP Basic as the SDKs send it. The password is a phone-verify API
// key, admitted exactly as /v1 admits one (keys/auth-hook.ts: the key service's look-up, the route's scope, the
// workspace's request limit and its RateLimit headers); the username is any non-empty value (an SDK sends an
// account SID or an API key SID). Then the path's ServiceSid must name the key's workspace.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import { type AdmissionDeps, admitKey, keyHeaderCount } from '../keys/auth-hook.js';
import { asTwilioError } from './errors.js';
import { namesWorkspace } from './sids.js';

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;

const malformed = () =>
  new AppError(
    'malformed_api_key',
    'The Authorization header must be HTTP Basic: a username (your account SID will do) and a phone-verify API key as the password.',
  );

/** The Basic password: the API key. */
function basicPassword(request: FastifyRequest): string {
  // One set of credentials: a second Authorization (or an X-API-Key beside it) could name someone else.
  if (keyHeaderCount(request) > 1) throw malformed();
  const header = request.headers.authorization;
  if (header === undefined) {
    throw new AppError(
      'missing_api_key',
      'Authenticate with HTTP Basic: a username (your account SID will do) and a phone-verify API key as the password.',
    );
  }
  const match = BASIC.exec(header);
  if (!match?.[1]) throw malformed();
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw malformed();
  return decoded.slice(colon + 1);
}

export function authenticateBasic(deps: AdmissionDeps): onRequestHookHandler {
  return async (request, reply) => {
    try {
      await admitKey(deps, request, reply, basicPassword(request));
    } catch (err) {
      // Refused before any operation: bad credentials are 20003, the workspace's request limit 20429.
      throw asTwilioError(err, request, 'admission');
    }
    const { ServiceSid } = request.params as { ServiceSid?: string };
    const workspaceId = request.principal?.workspaceId ?? '';
    // Another workspace's service, like an unknown one: not found.
    if (ServiceSid !== undefined && !namesWorkspace(ServiceSid, workspaceId)) {
      throw new AppError('not_found', `No service ${ServiceSid}.`);
    }
  };
}
