// What a dashboard request carries once the plugin's hooks have run (the signed-in session, the carrier
// warning) and how pages read it. Pages import this, never the plugin, so the plugin can import the pages.
import type { FastifyRequest } from 'fastify';
import type { SessionContext } from '../accounts/service.js';
import type { Actor } from '../audit/actor.js';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    session: SessionContext | undefined;
    /** In production: how many of the workspace's numbers have no carrier (their codes reach no phone). */
    carrierless: number;
  }
  interface FastifyContextConfig {
    /** A dashboard page reachable without a session (set-up, sign-in). */
    public?: boolean;
  }
}

/** The signed-in session; the preHandler guarantees it on every non-public page. */
export function sessionOf(request: FastifyRequest): SessionContext {
  if (!request.session) throw new AppError('not_found', 'Sign in first.');
  return request.session;
}

/** Who makes a change from this request, for the audit trail: the signed-in account, from the client's address. */
export function actorOf(request: FastifyRequest): Actor {
  const { user } = sessionOf(request);
  return { kind: 'account', id: user.id, email: user.email, address: request.ip };
}

/** The workspace the session is looking at. */
export function workspaceOf(request: FastifyRequest): { id: string; name: string } {
  const workspace = sessionOf(request).workspace;
  if (!workspace) throw new AppError('not_found', 'Your account belongs to no workspace yet.');
  return workspace;
}
