// Dashboard accounts: first-run set-up, sign-in (one message for every wrong credential, throttling per
// e-mail), sign-out and the `next` address after sign-in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_FAILURES_PER_EMAIL, SIGNIN_WINDOW_MS } from '../../src/accounts/signin-limit.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { dashboardClient, PASSWORD, signedIn } from '../helpers/dashboard.js';

/** The error message a re-shown form carries (its role="alert" paragraph). */
function alertOf(res: LightMyRequestResponse): string | undefined {
  return /role="alert">\s*([^<]*?)\s*</.exec(res.body)?.[1];
}

async function count(
  t: TestApp,
  table: 'users' | 'workspaces' | 'sessions' | 'memberships',
): Promise<number> {
  const row = await t.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const SETUP = { workspace_name: 'Acme', email: 'owner@example.com', password: PASSWORD };

describe('dashboard: first-run set-up', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('with no account yet, / and /dashboard (and sign-in) lead to /dashboard/setup', async () => {
    const root = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/dashboard');
    for (const url of ['/dashboard', '/dashboard/signin', '/dashboard/verifications']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 302, url);
      assert.equal(res.headers.location, '/dashboard/setup', url);
    }
    const setup = await t.app.inject({ method: 'GET', url: '/dashboard/setup' });
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /<form method="post" action="\/dashboard\/setup">/);
  });

  test('an invalid set-up form is shown again with the reason, and creates nothing', async () => {
    const browser = dashboardClient(t.app);
    const res = await browser.post(
      '/dashboard/setup',
      { ...SETUP, password: 'short' },
      { from: '/dashboard/setup' },
    );
    assert.equal(res.statusCode, 400);
    assert.match(alertOf(res) ?? '', /at least 10 characters/);
    assert.equal(await count(t, 'users'), 0);
    assert.equal(await count(t, 'workspaces'), 0);
  });

  test('set-up refuses an e-mail past 254 characters, or with control or format characters (400, nothing created)', async () => {
    for (const [email, reason] of [
      [`${'a'.repeat(243)}@example.com`, /email: must be at most 254 characters/],
      [`${'a'.repeat(15_000)}@example.com`, /email: must be at most 254 characters/],
      ['ow\u200bner@example.com', /email: must be an e-mail address/],
      ['owner@exa\u202emple.com', /email: must be an e-mail address/],
    ] as const) {
      const res = await dashboardClient(t.app).post(
        '/dashboard/setup',
        { ...SETUP, email },
        { from: '/dashboard/setup' },
      );
      assert.equal(res.statusCode, 400, JSON.stringify(email.slice(0, 40)));
      assert.match(alertOf(res) ?? '', reason);
    }
    // NUL is refused before any form is read (src/http/safe-text.ts): the error page, under 400.
    const nul = await dashboardClient(t.app).post(
      '/dashboard/setup',
      { ...SETUP, email: 'owner\u0000@example.com' },
      { from: '/dashboard/setup' },
    );
    assert.equal(nul.statusCode, 400);
    assert.match(nul.body, /email: must not contain NUL characters/);
    assert.equal(await count(t, 'users'), 0);
    assert.equal(await count(t, 'workspaces'), 0);
  });

  test('set-up creates the account and its workspace and signs in', async () => {
    const browser = dashboardClient(t.app);
    const res = await browser.post('/dashboard/setup', SETUP, { from: '/dashboard/setup' });
    assert.equal(res.statusCode, 302, res.body);
    assert.ok(browser.cookies.get('pv_session'), 'a session cookie');
    const [workspace] = await t.services.workspaces.listWorkspaces();
    assert.equal(workspace?.name, 'Acme');
    const session = await t.services.accounts.resolveSession(browser.cookies.get('pv_session'));
    assert.equal(session?.user.email, 'owner@example.com');
    assert.deepEqual(session?.workspaces, [{ id: workspace?.id, name: 'Acme' }]);
    const page = await browser.get('/dashboard');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /owner@example\.com/);
  });

  test('once an account exists, set-up is refused: GET and POST redirect to sign-in and nothing is created', async () => {
    const users = await count(t, 'users');
    const workspaces = await count(t, 'workspaces');
    const get = await t.app.inject({ method: 'GET', url: '/dashboard/setup' });
    assert.equal(get.statusCode, 302);
    assert.equal(get.headers.location, '/dashboard/signin');

    // A well-formed POST with a valid CSRF token (taken from the sign-in page): still refused.
    const intruder = dashboardClient(t.app);
    const post = await intruder.post(
      '/dashboard/setup',
      { ...SETUP, email: 'intruder@example.com', workspace_name: 'Takeover' },
      { from: '/dashboard/signin' },
    );
    assert.equal(post.statusCode, 302, post.body);
    assert.equal(post.headers.location, '/dashboard/signin');
    assert.equal(intruder.cookies.get('pv_session'), undefined);
    assert.equal(await count(t, 'users'), users);
    assert.equal(await count(t, 'workspaces'), workspaces);
    // GET / now leads to sign-in, not set-up.
    const dash = await t.app.inject({ method: 'GET', url: '/dashboard' });
    assert.equal(dash.headers.location, '/dashboard/signin?next=%2Fdashboard');
  });
});

describe('dashboard: sign-in and sign-out', () => {
  let t: TestApp;
  let clock: FakeClock;
  let wsId = '';
  const email = 'ops@example.com';

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    wsId = (await seedWorkspace(t.services)).workspaceId;
    await t.services.accounts.createAccount({ email, password: PASSWORD, workspaceIds: [wsId] }, OPERATOR);
  });
  after(() => t.close());

  const signIn = (form: Record<string, string>) => {
    const browser = dashboardClient(t.app);
    return browser
      .post('/dashboard/signin', { next: '/dashboard', ...form }, { from: '/dashboard/signin' })
      .then((res) => ({ res, browser }));
  };

  test('a wrong password and an unknown e-mail get the same answer and the same message', async () => {
    const wrong = await signIn({ email: 'other@example.com', password: 'not the password' });
    const unknown = await signIn({ email: 'nobody@example.com', password: PASSWORD });
    for (const { res, browser } of [wrong, unknown]) {
      assert.equal(res.statusCode, 401);
      assert.equal(browser.cookies.get('pv_session'), undefined);
    }
    assert.ok(alertOf(wrong.res));
    assert.equal(alertOf(wrong.res), alertOf(unknown.res));
    // And the e-mail typed is kept in the form, escaped, but the password is not.
    assert.match(unknown.res.body, /value="nobody@example\.com"/);
    assert.equal(unknown.res.body.includes(PASSWORD), false);
  });

  test('sign-in refuses an e-mail past 254 characters, or with control or format characters, with 400 before counting or storing anything', async () => {
    const rows = async () => (await t.store.db.selectFrom('signin_throttle').select('key').execute()).length;
    const before = await rows();
    for (const bad of [
      `${'a'.repeat(243)}@example.com`,
      `${'a'.repeat(15_000)}@example.com`,
      'o\u200dps@example.com',
      'ops@exam\u202eple.com',
    ]) {
      const { res, browser } = await signIn({ email: bad, password: PASSWORD });
      assert.equal(res.statusCode, 400, JSON.stringify(bad.slice(0, 40)));
      assert.match(alertOf(res) ?? '', /^email: must be /);
      assert.equal(browser.cookies.get('pv_session'), undefined);
    }
    // NUL is refused before any form is read (src/http/safe-text.ts): the error page, under 400.
    for (const bad of ['ops\u0000@example.com', 'ops@example.com\u0000']) {
      const { res, browser } = await signIn({ email: bad, password: PASSWORD });
      assert.equal(res.statusCode, 400, JSON.stringify(bad));
      assert.match(res.body, /email: must not contain NUL characters/);
      assert.equal(browser.cookies.get('pv_session'), undefined);
    }
    assert.equal(await rows(), before, 'no sign-in count was written');
    // Exactly 254 characters is an address like any other: judged (and unknown here).
    const longest = await signIn({ email: `${'a'.repeat(242)}@example.com`, password: PASSWORD });
    assert.equal(longest.res.statusCode, 401);
  });

  test('the right password signs in (e-mail case and spaces do not matter)', async () => {
    const { res, browser } = await signIn({ email: '  OPS@example.com ', password: PASSWORD });
    assert.equal(res.statusCode, 302, res.body);
    assert.equal(res.headers.location, '/dashboard');
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
  });

  test(`after ${MAX_FAILURES_PER_EMAIL} failures for one e-mail in the window, even the right password gets 429 with Retry-After; the next window works`, async () => {
    const target = 'throttled@example.com';
    await t.services.accounts.createAccount(
      { email: target, password: PASSWORD, workspaceIds: [wsId] },
      OPERATOR,
    );
    clock.set(Date.parse('2026-11-21T10:00:00.000Z') + 60_000); // one minute into a window
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) {
      const { res } = await signIn({ email: target, password: `wrong password ${i}` });
      assert.equal(res.statusCode, 401, `failure ${i + 1}`);
    }
    const { res, browser } = await signIn({ email: target, password: PASSWORD });
    assert.equal(res.statusCode, 429, res.body);
    assert.equal(browser.cookies.get('pv_session'), undefined);
    const retryAfter = Number(res.headers['retry-after']);
    assert.equal(retryAfter, (SIGNIN_WINDOW_MS - 60_000) / 1000);
    assert.match(alertOf(res) ?? '', /Too many failed sign-ins/);

    // Another account is not locked out by the failures for this e-mail.
    assert.equal((await signIn({ email, password: PASSWORD })).res.statusCode, 302);

    clock.advance(retryAfter * 1000 - 1);
    assert.equal((await signIn({ email: target, password: PASSWORD })).res.statusCode, 429);
    clock.advance(1);
    const later = await signIn({ email: target, password: PASSWORD });
    assert.equal(later.res.statusCode, 302, later.res.body);
    assert.ok(later.browser.cookies.get('pv_session'));
  });

  test('a right password gives back the attempt it took: sign-ins never spend the limit, failures stay counted', async () => {
    const target = 'often@example.com';
    await t.services.accounts.createAccount(
      { email: target, password: PASSWORD, workspaceIds: [wsId] },
      OPERATOR,
    );
    clock.set(Date.parse('2026-11-22T10:00:00.000Z'));
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL + 2; i++) {
      assert.equal((await signIn({ email: target, password: PASSWORD })).res.statusCode, 302, `sign-in ${i}`);
    }
    // A success between failures does not wipe them out: the fifth failure still spends the window.
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL - 1; i++) {
      assert.equal((await signIn({ email: target, password: `wrong ${i}` })).res.statusCode, 401);
    }
    assert.equal((await signIn({ email: target, password: PASSWORD })).res.statusCode, 302);
    assert.equal((await signIn({ email: target, password: 'wrong again' })).res.statusCode, 401);
    assert.equal((await signIn({ email: target, password: PASSWORD })).res.statusCode, 429);
  });

  test('sign-out ends the session: the old cookie no longer opens the dashboard', async () => {
    const browser = await signedIn(t.app, t.services, { workspaceIds: [wsId] });
    const old = browser.cookies.get('pv_session');
    assert.ok(old);
    await browser.get('/dashboard');
    const res = await browser.post('/dashboard/signout', {});
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/dashboard/signin');
    assert.equal(browser.cookies.get('pv_session'), undefined, 'the cookie is cleared');
    const replay = await t.app.inject({
      method: 'GET',
      url: '/dashboard',
      headers: { cookie: `pv_session=${old}` },
    });
    assert.equal(replay.statusCode, 302);
    assert.match(String(replay.headers.location), /^\/dashboard\/signin/);
    assert.equal(await t.services.accounts.resolveSession(old), undefined);
  });

  test('the open redirect is closed: next=https://evil.example or //evil.example lands on /dashboard', async () => {
    for (const next of [
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      '/dashboard/../\\evil',
    ]) {
      const page = await t.app.inject({
        method: 'GET',
        url: `/dashboard/signin?next=${encodeURIComponent(next)}`,
      });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /name="next" value="\/dashboard"/, next);
      const { res } = await signIn({ email, password: PASSWORD, next });
      assert.equal(res.statusCode, 302);
      assert.equal(res.headers.location, '/dashboard', next);
    }
    // A page inside the dashboard is followed.
    const { res } = await signIn({
      email,
      password: PASSWORD,
      next: '/dashboard/verifications?status=failed',
    });
    assert.equal(res.headers.location, '/dashboard/verifications?status=failed');
  });

  test('a signed-out visit to a page goes to sign-in with that page as next, and comes back to it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/inbox' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/dashboard/signin?next=%2Fdashboard%2Finbox');
    const page = await t.app.inject({ method: 'GET', url: String(res.headers.location) });
    assert.match(page.body, /name="next" value="\/dashboard\/inbox"/);
  });
});
