// Signing in to a running server's dashboard over real HTTP, as a browser does (the CLI tests of accounts).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SIGNIN_WINDOW_MS } from '../../src/accounts/signin-limit.js';

/** Signs in through the real sign-in form over HTTP: the CSRF cookie and field, then the session cookie. */
export async function signInOverHttp(url: string, email: string, password: string): Promise<Response> {
  const page = await fetch(`${url}/dashboard/signin`, { redirect: 'manual' });
  assert.equal(page.status, 200);
  const csrfCookie = page.headers.getSetCookie().map((c) => c.split(';')[0] ?? '');
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  assert.ok(token, 'the sign-in form carries a CSRF field');
  return fetch(`${url}/dashboard/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie.join('; ') },
    body: new URLSearchParams({ email, password, next: '/dashboard', _csrf: token }).toString(),
  });
}

export function sessionCookieOf(res: Response): string | undefined {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.startsWith('pv_session=') && c.length > 'pv_session='.length);
}

/** Whether the session cookie still opens the dashboard (200), or is sent to sign in (a redirect). */
export async function sessionOpensDashboard(url: string, cookie: string): Promise<boolean> {
  const page = await fetch(`${url}/dashboard`, { headers: { cookie }, redirect: 'manual' });
  await page.arrayBuffer();
  return page.status === 200;
}

/**
 * The sign-in limit counts failures in fixed windows of the wall clock (src/accounts/signin-limit.ts): a test that
 * fails five times on a real clock and then expects the lock must not straddle a window's end, where the count
 * starts again and the right password signs in. Waits for the next window when this one ends within `marginMs`
 * (at most that long, in one run of thirty with the default).
 */
export async function awayFromSigninWindowEnd(marginMs = 30_000): Promise<void> {
  const left = SIGNIN_WINDOW_MS - (Date.now() % SIGNIN_WINDOW_MS);
  if (left < marginMs) await sleep(left + 100);
}
