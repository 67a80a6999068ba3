// The dashboard in test mode (docs/dashboard.md, "Test mode"): the API key form's live/test switch and the keys'
// mode column; the verifications log, the overview and the inbox show live data unless their "Test data" toggle
// (`mode=test`) asks for the test data, and then only that; a test verification's page says it is one and where
// its code went; Settings lists, adds and removes test numbers (CSRF and form errors as for any change).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import {
  type Client,
  client,
  createTestApp,
  type SeededWorkspace,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';
import { sendOk } from '../helpers/verification.js';

const KEYS = '/dashboard/settings/security/api-keys';
const LOG = '/dashboard/verifications';
const INBOX = '/dashboard/inbox';
const SETTINGS = '/dashboard/settings';

const shownKey = (html: string) => /<input[^>]*id="new-api-key"[^>]*value="([^"]+)"/.exec(html)?.[1];
const toggle = (html: string) => /<a href="([^"]*)" role="switch" aria-checked="(true|false)"/.exec(html);
const hrefOf = (href: string) => href.replaceAll('&amp;', '&');

describe('dashboard: test mode', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let browser: DashboardClient;
  let live: Client;
  let testApi: Client;

  before(async () => {
    t = await createTestApp();
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
    live = client(t.app, ws.key);
    const key = await t.services.keys.createKey(
      { workspaceId: ws.workspaceId, name: 'ci', mode: 'test' },
      OPERATOR,
    );
    testApi = client(t.app, key.key);
  });
  after(() => t.close());

  test('the key form has a live/test switch (live by default); a test key is made and listed as test', async () => {
    const page = await browser.get(KEYS);
    assert.match(page.body, /<input type="radio" name="mode" value="live"[^>]*checked/);
    assert.match(page.body, /<input type="radio" name="mode" value="test"/);
    assert.match(page.body, /<th scope="col">Mode<\/th>/);
    const created = await browser.post(KEYS, {
      name: 'E2E suite',
      scopes: ['otp'],
      expires: '',
      mode: 'test',
    });
    assert.equal(created.statusCode, 200, created.body.slice(0, 300));
    const key = shownKey(created.body) ?? '';
    assert.match(key, /^pv_test_[0-9A-Za-z]{38}$/);
    assert.match(created.body, /This is a <strong>test key<\/strong>/);
    assert.equal((await client(t.app, key).ping()).statusCode, 200);
    const listed = await t.services.keys.listKeys(ws.workspaceId);
    assert.equal(listed.find((k) => k.name === 'E2E suite')?.mode, 'test');
    const again = await browser.get(KEYS);
    assert.match(again.body, /badge badge-mode-test">test</);
    // Without the switch's field (an older form), a live key.
    const plain = await browser.post(KEYS, { name: 'Web', scopes: ['otp'], expires: '' });
    assert.match(shownKey(plain.body) ?? '', /^pv_live_/);
  });

  test('any other mode is refused with the form again (400), and no key is made', async () => {
    const before = (await t.services.keys.listKeys(ws.workspaceId)).length;
    for (const mode of ['prod', 'TEST', 'tést', '\u202etest', 'x'.repeat(5000)]) {
      const res = await browser.post(KEYS, { name: 'Bad', scopes: ['otp'], expires: '', mode });
      assert.equal(res.statusCode, 400, mode.slice(0, 10));
      assert.match(res.body, /mode: must be one of live, test/);
      assert.equal(shownKey(res.body), undefined);
    }
    assert.equal((await t.services.keys.listKeys(ws.workspaceId)).length, before);
    const forged = await browser.post(
      KEYS,
      { name: 'Forged', scopes: ['otp'], mode: 'test' },
      { csrf: null },
    );
    assert.equal(forged.statusCode, 403);
  });

  test('the log shows live verifications unless Test data is on, then only test ones', async () => {
    const liveOne = await sendOk(live, { phone: '+61412344001' });
    const testOne = await sendOk(testApi, { phone: '+61412344002' });
    const plain = await browser.get(LOG);
    assert.ok(plain.body.includes(liveOne.id));
    assert.equal(plain.body.includes(testOne.id), false);
    const off = toggle(plain.body);
    assert.equal(off?.[2], 'false');
    assert.equal(hrefOf(off?.[1] ?? ''), `${LOG}?mode=test`);

    const tested = await browser.get(`${LOG}?mode=test`);
    assert.ok(tested.body.includes(testOne.id));
    assert.equal(tested.body.includes(liveOne.id), false);
    assert.match(tested.body, /Showing <strong>test data<\/strong>/);
    assert.equal(toggle(tested.body)?.[2], 'true');
    assert.equal(hrefOf(toggle(tested.body)?.[1] ?? ''), LOG);
    // The filter form keeps the mode, and filters apply within it.
    assert.match(tested.body, /<input type="hidden" name="mode" value="test"\/?>/);
    const filtered = await browser.get(`${LOG}?mode=test&status=pending&channel=voice`);
    assert.ok(filtered.body.includes(testOne.id));
    assert.equal(
      hrefOf(toggle(filtered.body)?.[1] ?? ''),
      `${LOG}?status=pending&channel=voice`,
      'the toggle keeps the filters',
    );
    // Anything but mode=test is live data.
    for (const junk of ['TEST', 'live', '1', '%00test', 'test%20']) {
      const res = await browser.get(`${LOG}?mode=${junk}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body.includes(testOne.id), false, junk);
    }
  });

  test("a test verification's page says test, and that its code went to the test outbox", async () => {
    const sent = await sendOk(testApi, { phone: '+61412344003' });
    const page = await browser.get(`${LOG}/${sent.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /badge badge-mode-test/);
    assert.match(page.body, /Delivered to the test outbox \(test mode: no carrier was used/);
    assert.match(page.body, /It was sent with a <strong>test key<\/strong>: test codes go to the/);
    assert.match(page.body, /href="\/dashboard\/verifications\?mode=test"/);
    const liveOne = await sendOk(live, { phone: '+61412344004' });
    const livePage = await browser.get(`${LOG}/${liveOne.id}`);
    assert.equal(livePage.body.includes('badge-mode-test'), false);
    assert.equal(livePage.body.includes('sent with a <strong>test key'), false);
    assert.match(livePage.body, /Handed over to the development provider/);
  });

  test('the inbox shows live messages unless Test data is on, then only test ones; its refresh keeps the mode', async () => {
    await sendOk(live, { phone: '+61412344005', channel: 'sms' });
    await sendOk(testApi, { phone: '+61412344006', channel: 'sms' });
    const plain = await browser.get(INBOX);
    assert.ok(plain.body.includes('+61412344005'));
    assert.equal(plain.body.includes('+61412344006'), false);
    const tested = await browser.get(`${INBOX}?mode=test`);
    assert.ok(tested.body.includes('+61412344006'));
    assert.equal(tested.body.includes('+61412344005'), false);
    assert.match(tested.body, /data-refresh="\/dashboard\/inbox\/messages\?mode=test"/);
    const refreshed = await browser.get(`${INBOX}/messages?mode=test`);
    assert.ok(refreshed.body.includes('+61412344006'));
    assert.equal(refreshed.body.includes('+61412344005'), false);
    const filtered = await browser.get(`${INBOX}?mode=test&to=4006`);
    assert.ok(filtered.body.includes('+61412344006'));
    assert.match(filtered.body, /data-refresh="\/dashboard\/inbox\/messages\?to=4006&amp;mode=test"/);
  });

  test('the overview counts live sends unless Test data is on, then test sends only', async () => {
    const only = await seedWorkspace(t.services, { name: 'Only tests' });
    const reader = await signedIn(t.app, t.services, { workspaceIds: [only.workspaceId] });
    const key = await t.services.keys.createKey(
      { workspaceId: only.workspaceId, name: 'ci', mode: 'test' },
      OPERATOR,
    );
    const suite = client(t.app, key.key);
    for (let i = 0; i < 3; i++) await sendOk(suite, { phone: `+6141234402${i}` });
    await sendOk(client(t.app, only.key), { phone: '+61412344030' });
    const liveStats = await t.services.overview.load(only.workspaceId, 'day');
    const testStats = await t.services.overview.load(only.workspaceId, 'day', 'test');
    assert.equal(liveStats.totals.sends, 1);
    assert.equal(testStats.totals.sends, 3);
    const plain = await reader.get('/dashboard?period=day');
    assert.equal(toggle(plain.body)?.[2], 'false');
    assert.equal(hrefOf(toggle(plain.body)?.[1] ?? ''), '/dashboard?period=day&mode=test');
    const tested = await reader.get('/dashboard?period=week&mode=test');
    assert.equal(toggle(tested.body)?.[2], 'true');
    assert.match(tested.body, /Showing <strong>test data<\/strong>/);
    // The period links keep the mode.
    assert.match(tested.body, /href="\/dashboard\?period=day&amp;mode=test"/);
  });

  test('Settings lists, adds and removes test numbers; bad input re-shows the form (400), CSRF is required', async () => {
    const page = await browser.get(SETTINGS);
    assert.match(page.body, /<h2 id="test-numbers-title">Test numbers<\/h2>/);
    const added = await browser.post(`${SETTINGS}/test-numbers`, { phone: '+61412344100', code: '246810' });
    assert.equal(added.statusCode, 302);
    const listed = await browser.get(SETTINGS);
    assert.match(listed.body, /<code>\+61412344100<\/code>[\s\S]*<code>246810<\/code>/);
    assert.match(listed.body, /action="\/dashboard\/settings\/test-numbers\/remove\?phone=%2B61412344100"/);
    const sent = await sendOk(testApi, { phone: '+61412344100' });
    const checked = await testApi.check({ verification_id: sent.id, code: '246810' });
    assert.equal(checked.json().verified, true);

    for (const [phone, code, why] of [
      ['+61412344101', '12', /code: must be 4 to 8 digits/],
      ['+61412344101', '１２３４', /code: must be 4 to 8 digits/],
      ['junk', '1234', /E\.164/],
      ['+61412344100', '1234', /already/],
    ] as const) {
      const res = await browser.post(`${SETTINGS}/test-numbers`, { phone, code });
      assert.equal(res.statusCode, res.body.includes('already') ? 409 : 400, res.body.slice(0, 200));
      assert.match(res.body, why);
    }
    const forged = await browser.post(
      `${SETTINGS}/test-numbers`,
      { phone: '+61412344102', code: '1234' },
      { csrf: null },
    );
    assert.equal(forged.statusCode, 403);

    await browser.get(SETTINGS);
    const removed = await browser.post(
      `${SETTINGS}/test-numbers/remove?phone=${encodeURIComponent('+61412344100')}`,
      {},
    );
    assert.equal(removed.statusCode, 302);
    assert.deepEqual(await t.services.testNumbers.listTestNumbers(ws.workspaceId), []);
    const gone = await browser.post(
      `${SETTINGS}/test-numbers/remove?phone=${encodeURIComponent('+61412344100')}`,
      {},
    );
    assert.equal(gone.statusCode, 404);
  });
});
