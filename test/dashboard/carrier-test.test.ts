// "Test credentials" on the Carriers page: a button (a POST form with the CSRF token) on each account whose
// carrier has a test, none on the others; pressing it runs the test and the page's notice says the outcome and
// the carrier's words (ok, refused, unreachable); the entry names the member. A form without the CSRF token, an
// unknown id, another workspace's account and odd ids (NUL, huge, odd Unicode) are refused with a 4xx and test
// nothing. No page holds a credential.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { BUILT_IN_CARRIERS } from '../../src/delivery/carriers/index.js';
import { pigeon } from '../fakes/fake-carrier.js';
import { startRecordingServer } from '../fakes/recording-server.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import { createTestApp, type SeededWorkspace, seedWorkspace, type TestApp } from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

const PAGE = '/dashboard/carriers';
const WRONG = 'wrong-auth-token-in-dashboard';

describe('dashboard: test credentials', () => {
  let t: TestApp;
  let fake: TwilioFake;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let browser: DashboardClient;
  const shown: string[] = [];
  const ids = { ok: '', refused: '', unreachable: '', pigeon: '', foreign: '' };

  before(async () => {
    fake = await startTwilioFake({ ...TWILIO, friendlyName: 'Acme Verify' });
    const closed = await startRecordingServer(() => undefined);
    await closed.close();
    t = await createTestApp({ carrierTypes: [...BUILT_IN_CARRIERS, pigeon] });
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    other = await seedWorkspace(t.services, { name: 'Other Co', numbers: [{ number: '+64211234567' }] });
    const add = async (
      workspaceId: string,
      type: string,
      credentials: Record<string, unknown>,
      baseUrl: string,
    ) => (await t.services.carriers.addAccount({ workspaceId, type, credentials, baseUrl }, OPERATOR)).id;
    ids.ok = await add(ws.workspaceId, 'twilio', TWILIO, fake.baseUrl);
    ids.refused = await add(ws.workspaceId, 'twilio', { ...TWILIO, authToken: WRONG }, fake.baseUrl);
    ids.unreachable = await add(ws.workspaceId, 'twilio', TWILIO, closed.baseUrl);
    ids.pigeon = await add(
      ws.workspaceId,
      'pigeon',
      { loftId: 'loft-1', apiToken: 'pigeon-token', signingSecret: 'pigeon-secret' },
      fake.baseUrl,
    );
    ids.foreign = await add(other.workspaceId, 'twilio', TWILIO, fake.baseUrl);
    browser = await signedIn(t.app, t.services, {
      workspaceIds: [ws.workspaceId],
      email: 'tester@example.com',
    });
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const get = async (path: string) => {
    const res = await browser.get(path);
    shown.push(res.body);
    return res;
  };
  /** Presses the button of an account: the redirect, then the page it leads to. */
  const press = async (id: string) => {
    const res = await browser.post(`${PAGE}/${encodeURIComponent(id)}/test`, {}, { from: PAGE });
    shown.push(res.body);
    return res;
  };
  const cardOf = (html: string, id: string) =>
    new RegExp(`<article class="carrier-account" id="${id}"[\\s\\S]*?</article>`).exec(html)?.[0] ?? '';
  const noticeOf = (html: string) => /<p class="flash flash-(ok|error)"[^>]*>([^<]*)<\/p>/.exec(html);
  const tested = () => t.services.audit.list(ws.workspaceId, { limit: 100, action: 'carrier.tested' });

  test('a button on each account whose carrier has a test, a CSRF-protected POST form; none for the others', async () => {
    const page = (await get(PAGE)).body;
    for (const id of [ids.ok, ids.refused, ids.unreachable]) {
      const card = cardOf(page, id);
      assert.match(card, new RegExp(`<form method="post" action="${PAGE}/${id}/test"`));
      assert.match(card, />Test credentials<\/button>/);
      assert.match(
        /action="[^"]*\/test"[\s\S]*?<\/form>/.exec(card)?.[0] ?? '',
        /name="_csrf" value="[^"]+"/,
      );
    }
    assert.doesNotMatch(cardOf(page, ids.pigeon), /Test credentials/);
  });

  test("ok: back to the account with the notice and the carrier's words; recorded with the member", async () => {
    const res = await press(ids.ok);
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `${PAGE}#${ids.ok}`);
    const notice = noticeOf((await get(PAGE)).body);
    assert.equal(notice?.[1], 'ok');
    assert.equal(
      notice?.[2],
      `Twilio account ${ids.ok}: the carrier accepted the credentials. Twilio: account &quot;Acme Verify&quot;, active`,
    );
    const entry = (await tested()).entries.find((e) => e.target === ids.ok);
    assert.equal(entry?.actor_email, 'tester@example.com');
    assert.deepEqual(entry?.details, { type: 'twilio', outcome: 'ok' });
  });

  test('refused and unreachable: an error notice that says what it means', async () => {
    await press(ids.refused);
    const refused = noticeOf((await get(PAGE)).body);
    assert.equal(refused?.[1], 'error');
    assert.equal(
      refused?.[2],
      `Twilio account ${ids.refused}: the carrier refused the credentials: rotate them. Twilio HTTP 401 20003: Authenticate`,
    );
    await press(ids.unreachable);
    const unreachable = noticeOf((await get(PAGE)).body);
    assert.equal(unreachable?.[1], 'error');
    assert.match(
      unreachable?.[2] ?? '',
      /could not be reached, so the credentials were not tested\. Twilio unreachable: ECONNREFUSED$/,
    );
  });

  test('without the CSRF token: 403, nothing tested', async () => {
    const before = fake.requests.length;
    const entries = (await tested()).entries.length;
    const res = await browser.post(`${PAGE}/${ids.ok}/test`, {}, { csrf: null });
    assert.equal(res.statusCode, 403);
    const forged = await browser.post(`${PAGE}/${ids.ok}/test`, {}, { csrf: 'forged-token' });
    assert.equal(forged.statusCode, 403);
    assert.equal(fake.requests.length, before);
    assert.equal((await tested()).entries.length, entries);
  });

  test("another workspace's account, unknown and odd ids: a 4xx, nothing tested", async () => {
    const before = fake.requests.length;
    const entries = (await t.services.audit.list(other.workspaceId, { limit: 100 })).entries.length;
    for (const id of [
      ids.foreign,
      'car_000000000000000000000000',
      `${ids.ok}\u0000`,
      '\u0000',
      'x'.repeat(20_000),
      'car_é🙂\u202e\u200b',
      '..%2F..%2Fsettings',
    ]) {
      const res = await press(id);
      assert.ok(
        res.statusCode >= 400 && res.statusCode < 500,
        `${JSON.stringify(id.slice(0, 40))}: ${res.statusCode}`,
      );
    }
    assert.equal((await press(ids.foreign)).statusCode, 404);
    assert.equal(fake.requests.length, before);
    assert.equal((await t.services.audit.list(other.workspaceId, { limit: 100 })).entries.length, entries);
  });

  test('an account whose carrier has no test: no button, and a forged press is refused (409), nothing recorded', async () => {
    const entries = (await tested()).entries.length;
    const res = await press(ids.pigeon);
    assert.equal(res.statusCode, 409);
    assert.match(cardOf(res.body, ids.pigeon), /offers no credential test/);
    assert.equal((await tested()).entries.length, entries);
  });

  test('no page shown holds a credential', () => {
    assert.ok(shown.length > 10);
    for (const body of shown) {
      for (const secret of [TWILIO.authToken, WRONG, 'pigeon-token', 'pigeon-secret']) {
        assert.equal(body.includes(secret), false, `a page held ${secret}`);
      }
    }
  });
});
