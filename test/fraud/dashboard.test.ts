// The dashboard's Fraud page (docs/dashboard.md "Fraud"): active and past blocks with the sends each refused, a
// lift button, the settings form and the allow list; every form CSRF-protected, every bad field a 400 form page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';
import { clockedApp } from '../helpers/verification.js';

const PAGE = '/dashboard/fraud';
const inRange = (i: number) => `+61412345${String(i).padStart(3, '0')}`;
const conversion = {
  conversion_sends: '40',
  conversion_percent: '0',
  country_conversion_sends: '200',
  country_conversion_percent: '5',
};

describe('dashboard: Fraud page', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  let browser: DashboardClient;

  before(async () => {
    ({ t, clock } = await clockedApp());
    const ws = await seedWorkspace(t.services, { name: 'Acme', pumpingGuard: 'default' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    browser = await signedIn(t.app, t.services, { email: 'ops@example.com', workspaceIds: [workspaceId] });
  });
  after(() => t.close());

  const trip = async () => {
    for (let i = 0; i < 10; i++) assert.equal((await api.send({ phone: inRange(i) })).statusCode, 201);
    for (let i = 10; i < 13; i++) assert.equal((await api.send({ phone: inRange(i) })).statusCode, 403);
  };

  test('the navigation links the page; it shows the settings and no block yet', async () => {
    const res = await browser.get(PAGE);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<a href="\/dashboard\/fraud" aria-current="page">Fraud<\/a>/);
    assert.match(res.body, /No range has been blocked/);
    assert.match(res.body, /name="range_limit"[^>]*value="10"/);
    assert.match(res.body, /name="conversion_sends"[^>]*value="50"/);
    assert.match(res.body, /name="conversion_percent"[^>]*value="10"/);
  });

  test('an active block is listed with its range, times and refused sends, and lifted by its button', async () => {
    await trip();
    const listed = await browser.get(PAGE);
    assert.match(listed.body, /<code>\+61412345xxx<\/code>/);
    assert.match(listed.body, /Velocity: 11 numbers in the window/);
    assert.match(listed.body, /<td data-label="Refused sends">3<\/td>/);
    assert.match(listed.body, /aria-label="Lift \+61412345"/);

    const forged = await browser.post(`${PAGE}/lift`, { range: '+61412345' }, { csrf: null });
    assert.equal(forged.statusCode, 403);
    assert.equal((await t.services.fraud.listBlocks(workspaceId))[0]?.active, true);

    const lifted = await browser.post(`${PAGE}/lift`, { range: '+61412345' });
    assert.equal(lifted.statusCode, 302);
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(block?.active, false);
    assert.equal(block?.lifted_by, 'ops@example.com');
    assert.equal((await api.send({ phone: inRange(20) })).statusCode, 201);
    const after = await browser.get(PAGE);
    assert.match(after.body, /lifted by ops@example\.com/);
    assert.doesNotMatch(after.body, /aria-label="Lift/);
    // Lifting again: nothing active, a 404 form page.
    const again = await browser.post(`${PAGE}/lift`, { range: '+61412345' }, { from: PAGE });
    assert.equal(again.statusCode, 404);
    assert.match(again.body, /No active block/);
  });

  test('settings are saved from the form and take effect; bad values are 400 form pages that change nothing', async () => {
    const saved = await browser.post(
      `${PAGE}/settings`,
      {
        range_limit: '3',
        range_window_seconds: '600',
        block_seconds: '120',
        ...conversion,
      },
      { from: PAGE },
    );
    assert.equal(saved.statusCode, 302);
    const savedSettings = await t.services.fraud.getSettings(workspaceId);
    assert.equal(savedSettings.range_limit, 3);
    assert.equal(savedSettings.conversion_sends, 40);
    assert.equal(savedSettings.conversion_percent, 0);
    assert.match((await browser.get(PAGE)).body, /The conversion signal per range is off/);
    for (const [name, bad] of [
      ['conversion_sends', '9'],
      ['conversion_sends', '1001'],
      ['conversion_percent', '101'],
      ['conversion_percent', '-1'],
    ]) {
      const res = await browser.post(
        `${PAGE}/settings`,
        {
          range_limit: '3',
          range_window_seconds: '600',
          block_seconds: '120',
          ...conversion,
          [name as string]: bad,
        },
        { from: PAGE },
      );
      assert.equal(res.statusCode, 400, `${name}=${bad}`);
      assert.match(res.body, new RegExp(`${name}: must be a whole number`));
    }
    clock.advance(3600_000);
    for (const bad of ['0', '1001', '-1', '1e3', '3.5', 'ten', '', '\u0000', '３', '9'.repeat(400)]) {
      const res = await browser.post(
        `${PAGE}/settings`,
        { range_limit: bad, range_window_seconds: '600', block_seconds: '120', ...conversion },
        { from: PAGE },
      );
      assert.equal(res.statusCode, 400, JSON.stringify(bad));
      // A NUL is refused by the dashboard for every form; the rest by the setting's rule.
      assert.match(res.body, /range_limit: must (be a whole number|not contain NUL)/);
    }
    const forged = await browser.post(
      `${PAGE}/settings`,
      { range_limit: '999', range_window_seconds: '600', block_seconds: '120', ...conversion },
      { csrf: null },
    );
    assert.equal(forged.statusCode, 403);
    assert.equal((await t.services.fraud.getSettings(workspaceId)).range_limit, 3);
  });

  test('the allow list: added, shown, removed; bad prefixes are 400 form pages; CSRF enforced', async () => {
    const added = await browser.post(`${PAGE}/allow`, { prefix: '+61412399' }, { from: PAGE });
    assert.equal(added.statusCode, 302);
    assert.match((await browser.get(PAGE)).body, /<code>\+61412399<\/code>/);
    for (const bad of ['61412399', '+', '+0', '+61\u0000', '<script>', '+6141239912345678', '+٦١']) {
      const res = await browser.post(`${PAGE}/allow`, { prefix: bad }, { from: PAGE });
      assert.equal(res.statusCode, 400, JSON.stringify(bad));
      assert.doesNotMatch(res.body, /<script>/);
    }
    const forged = await browser.post(`${PAGE}/allow`, { prefix: '+1' }, { csrf: null });
    assert.equal(forged.statusCode, 403);
    assert.deepEqual((await t.services.fraud.getSettings(workspaceId)).allow, ['+61412399']);
    const removed = await browser.post(
      `${PAGE}/allow/remove?prefix=${encodeURIComponent('+61412399')}`,
      {},
      { from: PAGE },
    );
    assert.equal(removed.statusCode, 302);
    assert.deepEqual((await t.services.fraud.getSettings(workspaceId)).allow, []);
    const gone = await browser.post(
      `${PAGE}/allow/remove?prefix=${encodeURIComponent('+61412399')}`,
      {},
      { from: PAGE },
    );
    assert.equal(gone.statusCode, 404);
  });
});
