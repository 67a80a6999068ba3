// Dashboard security: cookie attributes, CSRF on every POST, sessions and API keys kept apart, a user sees only
// their workspaces, page headers (CSP, framing, caching), escaping, and the form parser staying out of /v1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices } from '../../src/services.js';
import type { Store } from '../../src/store/database.js';
import { createTestApp, openTestStore, seedWorkspace, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { dashboardClient, PASSWORD, signedIn } from '../helpers/dashboard.js';

function setCookies(res: LightMyRequestResponse): string[] {
  const raw = res.headers['set-cookie'];
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}

function cookieLine(res: LightMyRequestResponse, name: string): string {
  const line = setCookies(res).find((c) => c.startsWith(`${name}=`));
  assert.ok(line, `no ${name} cookie in ${JSON.stringify(setCookies(res))}`);
  return line;
}

/** The attributes of a Set-Cookie line, lower-cased names: { httponly: '', samesite: 'Lax', … }. */
function attributesOf(line: string): Record<string, string> {
  return Object.fromEntries(
    line
      .split(';')
      .slice(1)
      .map((part) => {
        const [k = '', ...v] = part.trim().split('=');
        return [k.toLowerCase(), v.join('=')];
      }),
  );
}

/** Every POST route under /dashboard, read from the app's own route tree (so routes added later are covered). */
function dashboardPostRoutes(app: FastifyInstance): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false, method: 'POST' }).split('\n')) {
    const m = /^([│ ├└─]*)(\S.*?) \(([^)]*)\)$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    const path = (depth > 0 ? (stack[depth - 1] ?? '') : '') + (m[2] ?? '');
    stack[depth] = path;
    stack.length = depth + 1;
    if ((m[3] ?? '').split(', ').includes('POST') && path.startsWith('/dashboard/')) routes.push(path);
  }
  return routes;
}

/** Every row of every table: what a refused request must leave exactly as it was. */
async function snapshot(store: Store): Promise<string> {
  const tables = await store.db.introspection.getTables();
  const out: Record<string, unknown[]> = {};
  for (const table of tables.map((t) => t.name).sort()) {
    if (table.startsWith('kysely_')) continue;
    out[table] = await store.db
      .selectFrom(table as 'users')
      .selectAll()
      .execute();
    out[table]?.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return JSON.stringify(out);
}

/** An app built with a PUBLIC_URL of our choosing. */
async function appWithPublicUrl(publicUrl: string) {
  const handle = await openTestStore();
  const services = createServices({ store: handle.store, secret: TEST_SECRET, publicUrl });
  const app = await buildApp({ services });
  await app.ready();
  return {
    app,
    services,
    store: handle.store,
    async close() {
      await app.close();
      await handle.close();
    },
  };
}

describe('dashboard security: cookies', () => {
  for (const [publicUrl, secure] of [
    ['https://verify.example.com', true],
    ['http://127.0.0.1:3000', false],
  ] as const) {
    test(`the session cookie is HttpOnly, SameSite=Lax, Path=/dashboard${secure ? ', Secure (PUBLIC_URL https)' : ', not Secure (PUBLIC_URL http)'}`, async () => {
      const t = await appWithPublicUrl(publicUrl);
      try {
        const ws = await seedWorkspace(t.services);
        await t.services.accounts.createAccount(
          {
            email: 'ops@example.com',
            password: PASSWORD,
            workspaceIds: [ws.workspaceId],
          },
          OPERATOR,
        );
        const browser = dashboardClient(t.app);
        const page = await browser.get('/dashboard/signin');
        const res = await browser.post('/dashboard/signin', { email: 'ops@example.com', password: PASSWORD });
        assert.equal(res.statusCode, 302, res.body);
        const session = attributesOf(cookieLine(res, 'pv_session'));
        assert.equal('httponly' in session, true);
        assert.equal(session.samesite, 'Lax');
        assert.equal(session.path, '/dashboard');
        assert.equal('secure' in session, secure);
        // The CSRF secret and the one-time message cookies follow the same rule.
        const csrf = attributesOf(cookieLine(page, 'pv_csrf'));
        assert.equal('httponly' in csrf, true);
        assert.equal(csrf.path, '/dashboard');
        assert.equal('secure' in csrf, secure);
        const out = await browser.post('/dashboard/signout', {}, { from: '/dashboard' });
        assert.equal(out.statusCode, 302);
        const cleared = attributesOf(cookieLine(out, 'pv_session'));
        assert.equal(cleared.path, '/dashboard');
        assert.equal('secure' in cleared, secure);
      } finally {
        await t.close();
      }
    });
  }
});

describe('dashboard security: signed-in checks', () => {
  let t: TestApp;
  let ws1 = { workspaceId: '', key: '', keyId: '' };
  let ws2 = ws1;
  let foreign = ws1;

  before(async () => {
    t = await createTestApp();
    ws1 = await seedWorkspace(t.services, { name: 'Acme' });
    ws2 = await seedWorkspace(t.services, { name: 'Initech' });
    foreign = await seedWorkspace(t.services, { name: 'Globex' });
    await t.services.accounts.createAccount(
      {
        email: 'other@example.com',
        password: PASSWORD,
        workspaceIds: [foreign.workspaceId],
      },
      OPERATOR,
    );
  });
  after(() => t.close());

  test('CSRF: set-up and sign-in without a token or with a wrong one are refused (403) and change nothing', async () => {
    const fresh = await createTestApp();
    try {
      for (const csrf of [null, 'wrong-token']) {
        const browser = dashboardClient(fresh.app);
        await browser.get('/dashboard/setup');
        const before = await snapshot(fresh.store);
        const res = await browser.post(
          '/dashboard/setup',
          { workspace_name: 'Acme', email: 'a@example.com', password: PASSWORD },
          { csrf },
        );
        assert.equal(res.statusCode, 403, `${csrf}: ${res.body.slice(0, 200)}`);
        assert.equal(await snapshot(fresh.store), before);
        assert.equal(await fresh.services.accounts.needsSetup(), true);
      }
    } finally {
      await fresh.close();
    }
    for (const csrf of [null, 'wrong-token']) {
      const browser = dashboardClient(t.app);
      await browser.get('/dashboard/signin');
      const before = await snapshot(t.store);
      const res = await browser.post(
        '/dashboard/signin',
        { email: 'other@example.com', password: PASSWORD },
        { csrf },
      );
      assert.equal(res.statusCode, 403);
      assert.equal(browser.cookies.get('pv_session'), undefined);
      assert.equal(await snapshot(t.store), before);
    }
  });

  test('CSRF: every POST route under /dashboard refuses a missing, wrong or foreign token (403) and changes nothing', async () => {
    const routes = dashboardPostRoutes(t.app);
    for (const known of [
      '/dashboard/setup',
      '/dashboard/signin',
      '/dashboard/signout',
      '/dashboard/workspace',
      '/dashboard/carriers',
      '/dashboard/carriers/:id/rotate',
      '/dashboard/carriers/:id/remove',
      '/dashboard/settings/numbers/:id/carrier',
    ])
      assert.ok(routes.includes(known), `route list lacks ${known}: ${routes.join(', ')}`);
    const browser = await signedIn(t.app, t.services, { workspaceIds: [ws1.workspaceId, ws2.workspaceId] });
    // A token that is valid, but for another browser's CSRF secret.
    const other = dashboardClient(t.app);
    await other.get('/dashboard/signin');
    const foreignToken = other.csrf();
    const [number] = await t.services.workspaces.listNumbers(ws1.workspaceId);
    const account = await t.services.carriers.addAccount(
      {
        workspaceId: ws1.workspaceId,
        type: 'twilio',
        credentials: { accountSid: `AC${'1'.repeat(32)}`, authToken: 'auth-token' },
      },
      OPERATOR,
    );
    // A form that would change something on any of these routes, were it accepted.
    const form = {
      workspace_id: ws2.workspaceId,
      name: 'Renamed',
      workspace_name: 'Renamed',
      number: '+61491570157',
      type: 'mobile',
      countries: 'AU',
      scopes: 'otp',
      send_limit: '1',
      email: 'x@example.com',
      password: PASSWORD,
      carrier_id: account.id,
      account_sid: `AC${'2'.repeat(32)}`,
      auth_token: 'forged-auth-token',
    };
    for (const route of routes) {
      const path = route
        .replace(/api-keys\/:\w+/, `api-keys/${ws1.keyId}`)
        .replace(/numbers\/:\w+/, `numbers/${number?.id}`)
        .replace(/carriers\/:\w+/, `carriers/${account.id}`)
        .replace(/:\w+/g, 'x');
      for (const csrf of [null, 'wrong-token', foreignToken]) {
        await browser.get('/dashboard');
        const before = await snapshot(t.store);
        // Adding a carrier account takes a carrier type where adding a number takes a number type.
        const res = await browser.post(
          path,
          path === '/dashboard/carriers' ? { ...form, type: 'twilio' } : form,
          {
            csrf,
          },
        );
        assert.equal(res.statusCode, 403, `${path} with token ${csrf}: ${res.statusCode}`);
        assert.equal(await snapshot(t.store), before, `${path} with token ${csrf} changed something`);
      }
    }
    // The session survived every refused sign-out.
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
  });

  test('a dashboard session never grants /v1: the cookie alone gets 401 missing_api_key', async () => {
    const browser = await signedIn(t.app, t.services, { workspaceIds: [ws1.workspaceId] });
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const ping = await t.app.inject({ method: 'GET', url: '/v1/ping', headers: { cookie } });
    assert.equal(ping.statusCode, 401);
    assert.equal(ping.json().code, 'missing_api_key');
    const send = await t.app.inject({
      method: 'POST',
      url: '/v1/otp/send',
      headers: { cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ phone: '+61491570156' }),
    });
    assert.equal(send.statusCode, 401);
    assert.equal(send.json().code, 'missing_api_key');
  });

  test('an API key never grants the dashboard: Bearer or X-API-Key lead to sign-in, never a page', async () => {
    for (const headers of [{ authorization: `Bearer ${ws1.key}` }, { 'x-api-key': ws1.key }]) {
      for (const url of ['/dashboard', '/dashboard/settings/security/api-keys', '/dashboard/inbox']) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 302, url);
        assert.match(String(res.headers.location), /^\/dashboard\/signin/);
      }
    }
  });

  test('a user sees only their workspaces: a foreign workspace is 404 and the session keeps its own', async () => {
    const browser = await signedIn(t.app, t.services, { workspaceIds: [ws1.workspaceId, ws2.workspaceId] });
    const token = browser.cookies.get('pv_session');
    const looking = async () => (await t.services.accounts.resolveSession(token))?.workspace?.id;
    // Both memberships were made in the same instant: either may be the one looked at first.
    const start = await looking();
    assert.ok(start === ws1.workspaceId || start === ws2.workspaceId, String(start));
    const [own, second] = start === ws1.workspaceId ? [ws1, ws2] : [ws2, ws1];

    const page = await browser.get('/dashboard');
    assert.match(page.body, /Initech/);
    assert.equal(page.body.includes('Globex'), false, 'a foreign workspace is never named');

    const refused = await browser.post('/dashboard/workspace', { workspace_id: foreign.workspaceId });
    assert.equal(refused.statusCode, 404);
    assert.equal(await looking(), own.workspaceId);
    const unknown = await browser.post(
      '/dashboard/workspace',
      { workspace_id: 'ws_nope' },
      { from: '/dashboard' },
    );
    assert.equal(unknown.statusCode, 404);
    assert.equal(await looking(), own.workspaceId);

    // Its own two: it switches between them.
    const toSecond = await browser.post(
      '/dashboard/workspace',
      { workspace_id: second.workspaceId },
      { from: '/dashboard' },
    );
    assert.equal(toSecond.statusCode, 302);
    assert.equal(await looking(), second.workspaceId);
    const back = await browser.post(
      '/dashboard/workspace',
      { workspace_id: own.workspaceId },
      { from: '/dashboard' },
    );
    assert.equal(back.statusCode, 302);
    assert.equal(await looking(), own.workspaceId);
  });

  test('headers: CSP with script-src self and no unsafe-inline, no framing, no-store on pages', async () => {
    const browser = await signedIn(t.app, t.services, { workspaceIds: [ws1.workspaceId] });
    for (const [label, res] of [
      ['sign-in page', await t.app.inject({ method: 'GET', url: '/dashboard/signin' })],
      ['overview', await browser.get('/dashboard')],
      ['not found', await browser.get('/dashboard/no-such-page')],
    ] as const) {
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /(^|;)\s*script-src 'self'(;|$)/, `${label}: ${csp}`);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, label);
      assert.match(csp, /frame-ancestors 'none'/, label);
      assert.match(String(res.headers['x-frame-options']), /^(DENY|SAMEORIGIN)$/, label);
      assert.match(String(res.headers['cache-control']), /no-store/, label);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
      // And the pages hold to it: no inline script or style anywhere.
      assert.doesNotMatch(res.body, /<script(?![^>]*\ssrc=)[^>]*>/, label);
      assert.doesNotMatch(res.body, /\sstyle=/, label);
    }
  });

  test('output is escaped: markup in an e-mail address is shown as text', async () => {
    const email = '<i>x</i>"@example.com';
    await t.services.accounts.createAccount(
      { email, password: PASSWORD, workspaceIds: [ws1.workspaceId] },
      OPERATOR,
    );
    const browser = dashboardClient(t.app);
    await browser.post('/dashboard/signin', { email, password: PASSWORD }, { from: '/dashboard/signin' });
    const page = await browser.get('/dashboard');
    assert.equal(page.statusCode, 200);
    assert.equal(page.body.includes('<i>x</i>'), false);
    assert.match(page.body, /&lt;i&gt;x&lt;\/i&gt;&quot;@example\.com/);
  });

  test("the dashboard's form parser does not reach /v1: a form-encoded send is 415", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/otp/send',
      headers: { authorization: `Bearer ${ws1.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'phone=%2B61491570156',
    });
    assert.equal(res.statusCode, 415, res.body);
  });
});
