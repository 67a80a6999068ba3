// Issue 11 item 1: the sign-in limits hold under real concurrency. Every attempt is counted and checked in one
// atomic step before its password is compared, so no burst (in one process, or spread over two processes on one
// database) ever has more than 5 failures per e-mail or 30 per client address judged in a window. A judged
// attempt answers 401 (wrong) or 302 (right); a refused one answers 429 without its password being looked at.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import {
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  SIGNIN_WINDOW_MS,
} from '../../src/accounts/signin-limit.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type AppWorker, startAppWorker } from '../helpers/app-worker.js';
import { fakeClock } from '../helpers/clock.js';
import { PASSWORD } from '../helpers/dashboard.js';

const BURST = 100;
/** One minute into a window: every process is pinned to this instant, so they share one window. */
const NOW = Date.parse('2026-11-21T10:00:00.000Z') + 60_000;
const RETRY_AFTER = String((SIGNIN_WINDOW_MS - 60_000) / 1000);
const EMAIL = 'ops@example.com';

interface Fleet {
  t: TestApp;
  bases: string[];
  worker?: AppWorker;
}

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.worker?.stop();
  await fleet?.t.close();
  fleet = undefined;
});

/** The test's app (listening), with an account, and with `processes: 2` a second process on its database. */
async function start(processes: 1 | 2): Promise<Fleet> {
  const t = await createTestApp({ clock: fakeClock(NOW) });
  const ws = await t.services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR);
  await t.services.accounts.createAccount(
    { email: EMAIL, password: PASSWORD, workspaceIds: [ws.id] },
    OPERATOR,
  );
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const bases = [`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`];
  fleet = { t, bases };
  if (processes === 2) {
    fleet.worker = await startAppWorker(t.dir, { clockAt: NOW });
    bases.push(fleet.worker.url);
  }
  return fleet;
}

/** One CSRF cookie and token shared by the whole burst, as the attacker did. */
async function csrfOf(base: string): Promise<{ cookie: string; token: string }> {
  const page = await fetch(`${base}/dashboard/signin`, { redirect: 'manual' });
  assert.equal(page.status, 200);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  assert.ok(token);
  return { cookie, token };
}

/** Fires every sign-in at once, round-robin over the fleet's processes; resolves with each status. */
async function burst(f: Fleet, forms: { email: string; password: string }[]) {
  const { cookie, token } = await csrfOf(f.bases[0] ?? '');
  return Promise.all(
    forms.map(async (form, i) => {
      const res = await fetch(`${f.bases[i % f.bases.length]}/dashboard/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ ...form, next: '/dashboard', _csrf: token }).toString(),
      });
      await res.arrayBuffer();
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    }),
  );
}

function tally(replies: { status: number; retryAfter: string | null }[]) {
  const n = (status: number) => replies.filter((r) => r.status === status).length;
  const counts = { failed: n(401), signedIn: n(302), refused: n(429) };
  assert.equal(counts.failed + counts.signedIn + counts.refused, replies.length, JSON.stringify(replies));
  for (const r of replies) if (r.status === 429) assert.equal(r.retryAfter, RETRY_AFTER);
  return counts;
}

const signInOnce = async (f: Fleet, password: string) => (await burst(f, [{ email: EMAIL, password }]))[0];

for (const processes of [1, 2] as const) {
  const where = processes === 1 ? 'one app' : 'two processes on one database';

  describe(`sign-in limits under concurrency: ${where}`, () => {
    test(`${BURST} concurrent wrong passwords for one e-mail: exactly ${MAX_FAILURES_PER_EMAIL} judged, the rest 429; then the right password is 429 too`, async () => {
      const f = await start(processes);
      const forms = Array.from({ length: BURST }, (_, i) => ({
        email: EMAIL,
        password: `wrong password ${i}`,
      }));
      const counts = tally(await burst(f, forms));
      assert.deepEqual(counts, { failed: MAX_FAILURES_PER_EMAIL, signedIn: 0, refused: BURST - 5 });
      const late = await signInOnce(f, PASSWORD);
      assert.deepEqual(late, { status: 429, retryAfter: RETRY_AFTER });
    });

    test(`${BURST} concurrent sign-ins for one e-mail, the last with the right password: at most ${MAX_FAILURES_PER_EMAIL} failures judged`, async () => {
      const f = await start(processes);
      const forms = Array.from({ length: BURST }, (_, i) => ({
        email: EMAIL,
        password: i === BURST - 1 ? PASSWORD : `wrong password ${i}`,
      }));
      const counts = tally(await burst(f, forms));
      assert.ok(counts.failed <= MAX_FAILURES_PER_EMAIL, `${counts.failed} failures were judged`);
      assert.ok(counts.signedIn <= 1);
      // Judged: the failures and at most the one right password; everything else was refused unseen.
      assert.ok(counts.refused >= BURST - MAX_FAILURES_PER_EMAIL - 1, JSON.stringify(counts));
    });

    test(`${BURST} concurrent sign-ins for ${BURST} e-mails from one address: exactly ${MAX_FAILURES_PER_ADDRESS} judged, the rest 429`, async () => {
      const f = await start(processes);
      const forms = Array.from({ length: BURST }, (_, i) => ({
        email: `guess-${i}@example.com`,
        password: `wrong password ${i}`,
      }));
      const counts = tally(await burst(f, forms));
      assert.deepEqual(counts, {
        failed: MAX_FAILURES_PER_ADDRESS,
        signedIn: 0,
        refused: BURST - MAX_FAILURES_PER_ADDRESS,
      });
      // The address is spent for every e-mail, the right password of a real account included.
      assert.deepEqual(await signInOnce(f, PASSWORD), { status: 429, retryAfter: RETRY_AFTER });
    });
  });
}
