// Issue 11, item 3: text PostgreSQL cannot store (NUL, U+0000) or that is not Unicode (a lone surrogate) is
// refused where it enters the service, on every route: in a path it names nothing (404, like any id that is not
// id-shaped); in a query or body it is a 400 naming the field. The API's ids and bodies, the webhook paths and
// the dashboard's forms, paths and queries. Before the fix PostgreSQL answered most of these with 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../helpers/api-types.js';
import { client, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type DashboardClient, dashboardClient, PASSWORD, signedIn } from '../helpers/dashboard.js';

/** A 400 invalid_request problem that names the field holding the bad text. */
function assertRefused(res: LightMyRequestResponse, field: string): void {
  assert.equal(res.statusCode, 400, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const problem = json<Problem>(res);
  assert.equal(problem.code, 'invalid_request');
  assert.deepEqual(
    problem.errors?.map((e) => e.field),
    [field],
  );
}

/** A 404 not_found problem: a path id with such text names nothing. */
function assertNotFound(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 404, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(json<Problem>(res).code, 'not_found');
}

/** The dashboard's own error page, under `status`, saying what was wrong. */
function assertRefusedPage(res: LightMyRequestResponse, status = 400): void {
  assert.equal(res.statusCode, status, res.body.slice(0, 500));
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.match(res.body, /NUL characters or unpaired surrogates/);
}

describe('text the store cannot hold is refused at the door', () => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  let api: ReturnType<typeof client>;
  let browser: DashboardClient;

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Nul Co' });
    key = ws.key;
    workspaceId = ws.workspaceId;
    api = client(t.app, key);
    browser = await signedIn(t.app, t.services, { email: 'nul@example.com', workspaceIds: [workspaceId] });
  });
  after(() => t.close());

  describe('the API', () => {
    test('a verification id with NUL in the path: read and cancel find nothing', async () => {
      assertNotFound(await api.get('ver_%00x'));
      assertNotFound(await api.cancel('ver_%00x'));
    });

    test('NUL in a query string', async () => {
      const headers = { authorization: `Bearer ${key}` };
      assertRefused(await t.app.inject({ method: 'GET', url: '/v1/ping?x=%00', headers }), 'x');
    });

    test('a verification id with NUL in the check body', async () => {
      assertRefused(await api.check({ verification_id: 'ver_\u0000x', code: '123456' }), 'verification_id');
    });

    test('NUL or a lone surrogate anywhere in a send body, metadata included', async () => {
      assertRefused(await api.send({ phone: '+61491570156', brand_name: 'A\u0000B' }), 'brand_name');
      assertRefused(await api.send({ phone: '+61491570156', brand_name: 'A\ud800B' }), 'brand_name');
      assertRefused(
        await api.send({ phone: '+61491570156', metadata: { a: ['x', 'y\u0000'] } }),
        'metadata.a.1',
      );
      // A lone surrogate written as a JSON escape is a string JavaScript holds but UTF-8 cannot.
      const raw = '{"phone":"+61491570156","metadata":{"k\\udc00":1}}';
      assertRefused(await api.send(raw), 'metadata');
    });

    test('the service still works after, and a well-formed pair of surrogates (an emoji) is fine', async () => {
      const res = await api.send({ phone: '+61491570156', metadata: { note: 'ok 😀' } });
      assert.equal(res.statusCode, 201, res.body);
      const id = json<{ id: string }>(res).id;
      assert.equal((await api.get(id)).statusCode, 200);
    });
  });

  test('a carrier webhook with NUL in the account id (no signature needed to reach it) finds nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/webhooks/twilio/car_%00',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'MessageSid=SM1&MessageStatus=delivered',
    });
    assertNotFound(res);
  });

  describe('the dashboard', () => {
    test('sign-in with NUL in the e-mail', async () => {
      // The account service's e-mail rule refused this with 400 already; the page now says why, like every form.
      const visitor = dashboardClient(t.app);
      const res = await visitor.post(
        '/dashboard/signin',
        { email: 'a\u0000@b.co', password: PASSWORD, next: '/dashboard' },
        { from: '/dashboard/signin' },
      );
      assertRefusedPage(res);
    });

    test('number forms: NUL in the id of the path and in the fields', async () => {
      await browser.get('/dashboard/settings');
      assertRefusedPage(await browser.post('/dashboard/settings/numbers/%00/remove', {}), 404);
      assertRefusedPage(
        await browser.post('/dashboard/settings/numbers/%00/carrier', { carrier_id: 'none' }),
        404,
      );
      assertRefusedPage(
        await browser.post('/dashboard/settings/numbers', {
          number: '+61491570157',
          carrier_id: 'car_\u0000',
        }),
      );
    });

    test('key forms: NUL in the id to revoke and in the new key’s name', async () => {
      await browser.get('/dashboard/settings/security/api-keys');
      assertRefusedPage(await browser.post('/dashboard/settings/security/api-keys/%00/revoke', {}), 404);
      assertRefusedPage(
        await browser.post('/dashboard/settings/security/api-keys', { name: 'k\u0000', scopes: 'otp' }),
      );
    });

    test('carrier and verification pages: NUL in the id of the path; in a filter, shown back', async () => {
      await browser.get('/dashboard/carriers');
      assertRefusedPage(await browser.post('/dashboard/carriers/car_%00/remove', {}), 404);
      assertRefusedPage(await browser.get('/dashboard/verifications/ver_%00'), 404);
      // The console's filters are read tolerantly (issue 10): only digits are searched for, the rest is shown back.
      assert.equal((await browser.get('/dashboard/verifications?phone=%00156')).statusCode, 200);
      assert.equal((await browser.get('/dashboard/inbox?to=%00156')).statusCode, 200);
    });

    test('the dashboard still works after', async () => {
      const res = await browser.get('/dashboard/settings');
      assert.equal(res.statusCode, 200);
    });
  });
});
