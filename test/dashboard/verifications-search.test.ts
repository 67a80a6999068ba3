// Issue 10, item 5, on the page: the log's phone search box is user input. Whatever is typed (NUL bytes, huge
// strings, other scripts' digits, LIKE wildcards, quotes, repeated parameters), the page answers 200 with the
// input shown back escaped, never a 500; wildcards match nothing by themselves. The box says what it finds, and a
// broad search that stopped early says so and links on to the older verifications.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createVerificationLog } from '../../src/verification/log.js';
import { client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';
import { sendOk } from '../helpers/verification.js';

const LOG = '/dashboard/verifications';

function listedIds(html: string): string[] {
  return [...html.matchAll(/href="\/dashboard\/verifications\/(ver_[0-9A-Za-z]+)"/g)].map(
    (m) => m[1] as string,
  );
}

describe('dashboard: the phone search box', () => {
  const clock = fakeClock();
  let t: TestApp;
  let browser: DashboardClient;
  let workspaceId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    const api = client(t.app, ws.key);
    for (const phone of ['+61412345156', '+61412345256', '+61412315156', '+447400123456']) {
      ids[phone] = (await sendOk(api, { phone, channel: 'sms' })).id;
      clock.advance(1000);
    }
    browser = await signedIn(t.app, t.services, { workspaceIds: [workspaceId] });
  });
  after(() => t.close());

  const search = (phone: string) => browser.get(`${LOG}?phone=${encodeURIComponent(phone)}`);
  const all = () => Object.values(ids).reverse();

  test('the box says what it finds', async () => {
    const res = await browser.get(LOG);
    assert.match(res.body, /aria-describedby="phone-hint"/);
    assert.match(res.body, /id="phone-hint"[^>]*>[^<]*its start \(\+61 4…, 0412…\) or its last digits/);
    assert.match(res.body, /Digits from the middle of a number are not looked for/);
  });

  test('last digits, a national start, an E.164 start, a whole number; not the middle', async () => {
    const found = async (phone: string) => listedIds((await search(phone)).body);
    assert.deepEqual(await found('156'), [ids['+61412315156'], ids['+61412345156']]);
    assert.deepEqual(await found('0412 345'), [ids['+61412345256'], ids['+61412345156']]);
    assert.deepEqual(await found('+44 7400'), [ids['+447400123456']]);
    assert.deepEqual(await found('0412 345 256'), [ids['+61412345256']]);
    assert.deepEqual(await found('2345'), [], 'digits from the middle of +61412345156 and +61412345256');
  });

  test('hostile or odd input: 200, shown back escaped, never a 500; wildcards are no wildcards', async () => {
    const inputs = [
      '\u0000',
      '\u0000156',
      '156\u0000',
      '%',
      '_',
      '%%%',
      '%_%',
      "'",
      '"',
      "' OR 1=1 --",
      '"; DROP TABLE verifications; --',
      '\\',
      '\\%156',
      '<script>alert(1)</script>',
      'a'.repeat(10_000),
      '1'.repeat(10_000),
      '+'.repeat(5000),
      '٠٤١٢ ٣٤٥',
      '＋６１ ４１２',
      '🙂156',
      '\u202e156',
      'e\u0301',
      '+61 4',
      '   ',
      '+',
      '++61',
      '(0)',
      '1e9',
      '0x1F',
      '$' + '{phone}',
    ];
    for (const phone of inputs) {
      const res = await search(phone);
      assert.equal(res.statusCode, 200, `${JSON.stringify(phone.slice(0, 20))}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /<script>alert/);
    }
    // Wildcards are dropped like any non-digit: alone they filter nothing, around digits they are not wildcards.
    assert.deepEqual(listedIds((await search('%')).body), all());
    assert.deepEqual(listedIds((await search('_')).body), all());
    assert.deepEqual(listedIds((await search('%56')).body), listedIds((await search('56')).body));
    assert.deepEqual(listedIds((await search('1_6')).body), [], '"16" ends no number, and _ is no wildcard');
    // The form shows what was applied: the first 32 characters, escaped.
    const quoted = await search('"><b>x</b>');
    assert.match(quoted.body, /name="phone"[^>]*value="&quot;&gt;&lt;b&gt;x&lt;\/b&gt;"/);
    // Repeated or bracketed parameters are not a phone filter; broken percent-encoding and bytes that are no
    // UTF-8 are taken as they decode.
    const raw = [
      'phone=156&phone=256',
      'phone[]=156',
      'phone[a]=156',
      'phone',
      'phone=%FF',
      'phone=%ED%A0%80',
    ];
    for (const query of [...raw, 'phone=%zz156', 'phone=%', 'phone=%00%00']) {
      const res = await browser.get(`${LOG}?${query}`);
      assert.equal(res.statusCode, 200, query);
    }
  });

  test('a broad search that stopped early says so and leads on to the older verifications', async () => {
    const small = createVerificationLog({
      db: t.store.reader,
      clock,
      searchLimits: { matchesReadInFull: 1, newestLookedAt: 2 },
    });
    const app = await buildApp({ services: { ...t.services, log: small } });
    try {
      const narrow = await signedIn(app, t.services, { workspaceIds: [workspaceId] });
      // "6": every number here ends with it; the two newest are looked at, the rest a page away.
      const res = await narrow.get(`${LOG}?phone=6`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(listedIds(res.body), all().slice(0, 2));
      assert.match(res.body, /only the newest were looked through/);
      const older = /<a href="([^"]+)" rel="next">Older/.exec(res.body)?.[1]?.replaceAll('&amp;', '&');
      assert.ok(older);
      assert.deepEqual(listedIds((await narrow.get(older)).body), all().slice(2, 4));
    } finally {
      await app.close();
    }
  });
});
