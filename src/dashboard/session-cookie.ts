// The session cookie: a random token (its hash is the session's key), HttpOnly, SameSite=Lax, Secure over HTTPS.
import type { FastifyReply } from 'fastify';
import { SESSION_TTL_MS } from '../accounts/service.js';
import { BASE } from './layout.js';

export const SESSION_COOKIE = 'pv_session';
const FLASH_COOKIE = 'pv_flash';

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: BASE,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: SESSION_TTL_MS / 1000,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: BASE });
}

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

/** A one-time message for the next page (after a redirect). */
export function setFlash(reply: FastifyReply, flash: Flash): void {
  reply.setCookie(FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString('base64url'), {
    path: BASE,
    httpOnly: true,
    sameSite: 'lax',
    maxAge: 60,
  });
}

export function takeFlash(
  cookies: Record<string, string | undefined>,
  reply: FastifyReply,
): Flash | undefined {
  const raw = cookies[FLASH_COOKIE];
  if (!raw) return undefined;
  reply.clearCookie(FLASH_COOKIE, { path: BASE });
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Flash;
    return (parsed.kind === 'ok' || parsed.kind === 'error') && typeof parsed.text === 'string'
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}
