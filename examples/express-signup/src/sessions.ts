// A small in-memory session per browser: a random id in an HttpOnly cookie, the sign-up's state on the server.
// The verification id never travels to the browser, so the page cannot swap it for another one (README.md says
// why). A real app keeps this in its own session store (Redis, its database) so it survives restarts and spans
// processes; this map is the smallest thing that shows the flow.
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';

export interface SignupSession {
  /** The verification the code form checks, from the last send. */
  verificationId?: string;
  /** The E.164 number that verification is for (as the service normalised it). */
  phone?: string;
  /** Set once the right code was checked. */
  verifiedPhone?: string;
  expiresAt: number;
}

const COOKIE = 'signup_session';
const LIFETIME_MS = 30 * 60_000;
const sessions = new Map<string, SignupSession>();
let lastSweep = 0;

function cookieOf(request: Request): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/** The browser's session, made (with its cookie) when it has none or it has expired. */
export function sessionOf(request: Request, response: Response): SignupSession {
  const now = Date.now();
  const id = cookieOf(request);
  const found = id === undefined ? undefined : sessions.get(id);
  if (found && found.expiresAt > now) return found;
  if (id !== undefined) sessions.delete(id);
  // Expired sessions go as new ones arrive, at most once a minute: the map stays about as large as the sessions
  // alive, and a stream of new visitors costs no scan each.
  if (now - lastSweep > 60_000) {
    lastSweep = now;
    for (const [key, session] of sessions) if (session.expiresAt <= now) sessions.delete(key);
  }
  const fresh: SignupSession = { expiresAt: now + LIFETIME_MS };
  const newId = randomBytes(32).toString('base64url');
  sessions.set(newId, fresh);
  response.cookie(COOKIE, newId, {
    httpOnly: true,
    sameSite: 'lax', // no cross-site POST carries it: the forms need no CSRF token of their own
    secure: request.secure,
    maxAge: LIFETIME_MS,
    path: '/',
  });
  return fresh;
}
