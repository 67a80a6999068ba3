// The conversion signal per country (docs/api.md "The conversion signal"): a country whose last N finished codes in
// the workspace (default 200, in the last day, after its last block) were less than P% verified (default 5) is
// blocked by the sweeper's judgement; sends to any number of it are then refused with 403 destination_blocked,
// reason low_conversion, retry_after, and the block names the country. The allow list still wins; a block can be
// lifted by hand (audited); settings per workspace, 0 turns it off.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { type Actor, OPERATOR } from '../../src/audit/actor.js';
import { client, codeFor, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';
import { assertProblem, clockedApp } from '../helpers/verification.js';

const ACCOUNT: Actor = { kind: 'account', id: 'usr_ops', email: 'ops@example.com', address: '203.0.113.7' };

/** The i-th AU mobile of the run: each in a range of its own, so only the country's signal is on trial. */
const au = (i: number) => `+6141${String(2000 + i).padStart(4, '0')}000`;
/** Judged: 20 finished codes per country; blocked below 10%. The range signal is off. */
const SETTINGS = {
  country_conversion_sends: 20,
  country_conversion_percent: 10,
  conversion_percent: 0,
};

describe('pumping guard: conversion signal per country', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  const apps: TestApp[] = [];

  beforeEach(async () => {
    ({ t, clock } = await clockedApp());
    apps.push(t);
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    await t.services.fraud.setSettings(workspaceId, SETTINGS, OPERATOR);
  });
  after(async () => {
    for (const a of apps) await a.close();
  });

  /** `count` sends to AU numbers (from the `from`-th), the first `verified` checked; then the others expire. */
  async function sendAu(count: number, verified: number, from = 0): Promise<void> {
    for (let i = from; i < from + count; i++) {
      const res = await api.send({ phone: au(i), channel: 'sms' });
      assert.equal(res.statusCode, 201, res.body);
      if (i - from < verified) {
        const id = (res.json() as { id: string }).id;
        const code = await codeFor(t.services, au(i));
        assert.equal((await api.check({ verification_id: id, code })).statusCode, 200);
      }
      clock.advance(1000);
    }
    clock.advance(301_000);
    await t.services.verifications.expireDue();
  }

  test('the defaults: the last 200 finished codes of a country, blocked under 5% verified', async () => {
    const other = await seedWorkspace(t.services, { name: 'Defaults' });
    const settings = await t.services.fraud.getSettings(other.workspaceId);
    assert.equal(settings.country_conversion_sends, 200);
    assert.equal(settings.country_conversion_percent, 5);
  });

  test('1 of the last 20 AU codes verified: AU is blocked, any AU number is refused, other countries are not', async () => {
    await sendAu(20, 1);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, country: 'AU' }]);

    const res = await api.send({ phone: au(50), channel: 'sms' });
    const problem = assertProblem(res, 403, 'destination_blocked');
    assert.equal(problem.reason, 'low_conversion');
    assert.equal(problem.retry_after, 3600);
    assert.equal(res.headers['retry-after'], '3600');
    assert.match(String(problem.detail), /numbers of AU are blocked/);
    // Another country of the workspace is not.
    assert.equal((await api.send({ phone: '+64211234567', channel: 'sms' })).statusCode, 201);

    const [block, ...more] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(more.length, 0);
    assert.equal(block?.country, 'AU');
    assert.equal(block?.range, null);
    assert.equal(block?.reason, 'low_conversion');
    assert.equal(block?.why, 'Low conversion: 1 of the last 20 codes to AU verified');
    assert.equal(block?.refused, 1);
    assert.equal(block?.active, true);
    // The refused send is in the log with its block.
    const logged = await t.store.db.selectFrom('refused_sends').selectAll().execute();
    assert.deepEqual(
      logged.map((r) => [r.phone, r.reason, r.block_id]),
      [[au(50), 'low_conversion', block?.id]],
    );
    // Judged again, the country in force is not blocked twice.
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    // The block ends at its time.
    clock.advance(3600_000);
    assert.equal((await api.send({ phone: au(51), channel: 'sms' })).statusCode, 201);
  });

  test('at the threshold, with fewer than N codes, or with the signal off, nothing is blocked', async () => {
    await sendAu(19, 0);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [], '19 codes say nothing');
    await t.services.fraud.setSettings(workspaceId, { country_conversion_percent: 0 }, OPERATOR);
    await sendAu(1, 0, 19);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [], 'off');
    await t.services.fraud.setSettings(workspaceId, { country_conversion_percent: 10 }, OPERATOR);
    await sendAu(20, 2, 100);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [], '2 of 20 is 10%: not below it');
  });

  test('the allow list wins: an allowed number or range passes a country block, and is no evidence', async () => {
    await t.services.fraud.allow(workspaceId, '+61419999', OPERATOR);
    // 20 unchecked codes to an allowed range: no evidence at all.
    for (let i = 0; i < 20; i++) {
      assert.equal((await api.send({ phone: `+61419999${String(i).padStart(3, '0')}` })).statusCode, 201);
      clock.advance(1000);
    }
    clock.advance(301_000);
    await t.services.verifications.expireDue();
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    await sendAu(20, 0);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, country: 'AU' }]);
    assert.equal((await api.send({ phone: '+61419999500', channel: 'sms' })).statusCode, 201);
    await t.services.fraud.allow(workspaceId, '+61412345678', OPERATOR);
    assert.equal((await api.send({ phone: '+61412345678', channel: 'sms' })).statusCode, 201);
    assert.equal((await api.send({ phone: '+61412345679', channel: 'sms' })).statusCode, 403);
  });

  test('lifted by hand: sends pass at once, the lift is audited, and only fresh evidence blocks again', async () => {
    await sendAu(20, 0);
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
    const { country, lifted } = await t.services.fraud.liftCountry(workspaceId, 'AU', ACCOUNT);
    assert.equal(country, 'AU');
    assert.equal(lifted.length, 1);
    assert.equal((await api.send({ phone: au(60), channel: 'sms' })).statusCode, 201);
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(block?.active, false);
    assert.equal(block?.lifted_by, 'ops@example.com');
    const [entry] = (await t.services.audit.list(workspaceId, { action: 'fraud.block_lifted', limit: 5 }))
      .entries;
    assert.deepEqual(entry?.details, { country: 'AU', blocks: lifted });
    // The evidence predates the lift: judged again, nothing.
    clock.advance(301_000);
    await t.services.verifications.expireDue();
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    await assert.rejects(t.services.fraud.liftCountry(workspaceId, 'AU', OPERATOR), { code: 'not_found' });
  });

  test('lift inputs attacked: not a served country is 400 naming the field', async () => {
    for (const bad of [
      'au',
      'AUS',
      'A',
      '',
      'AU\u0000',
      '\u202eAU',
      'ＡＵ',
      'XX',
      61,
      null,
      'A'.repeat(100_000),
    ]) {
      await assert.rejects(
        t.services.fraud.liftCountry(workspaceId, bad, OPERATOR),
        (err: { code?: string; extras?: { errors?: { field: string }[] } }) =>
          err.code === 'invalid_request' && err.extras?.errors?.[0]?.field === 'country',
        JSON.stringify(String(bad).slice(0, 20)),
      );
    }
  });

  test('settings are bounded, audited from and to, and bad values change nothing', async () => {
    const saved = await t.services.fraud.setSettings(
      workspaceId,
      { country_conversion_sends: 500, country_conversion_percent: 3 },
      ACCOUNT,
    );
    assert.equal(saved.country_conversion_sends, 500);
    const [entry] = (await t.services.audit.list(workspaceId, { action: 'fraud.settings_changed', limit: 5 }))
      .entries;
    assert.deepEqual(entry?.details, {
      from: { country_conversion_sends: 20, country_conversion_percent: 10 },
      to: { country_conversion_sends: 500, country_conversion_percent: 3 },
    });
    for (const [name, bad] of [
      ['country_conversion_sends', 9],
      ['country_conversion_sends', 10_001],
      ['country_conversion_sends', 1.5],
      ['country_conversion_sends', '200'],
      ['country_conversion_percent', 101],
      ['country_conversion_percent', -1],
      ['country_conversion_percent', Number.NaN],
      ['country_conversion_percent', 1e300],
    ] as const) {
      await assert.rejects(t.services.fraud.setSettings(workspaceId, { [name]: bad }, OPERATOR), {
        code: 'invalid_request',
      });
    }
    const after = await t.services.fraud.getSettings(workspaceId);
    assert.equal(after.country_conversion_sends, 500);
    assert.equal(after.country_conversion_percent, 3);
  });

  test('two judgements at once write one block of the country', async () => {
    await sendAu(20, 0);
    const results = await Promise.all([
      t.services.fraud.judgeConversion(),
      t.services.fraud.judgeConversion(),
      t.services.fraud.judgeConversion(),
    ]);
    assert.equal(results.flat().length, 1);
    assert.equal((await t.services.fraud.listBlocks(workspaceId)).length, 1);
  });
});

describe('pumping guard: a country block on the Fraud page', () => {
  let t: TestApp;
  let clock: FakeClock;
  let browser: DashboardClient;
  let workspaceId: string;

  beforeEach(async () => {
    ({ t, clock } = await clockedApp());
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    await t.services.fraud.setSettings(workspaceId, SETTINGS, OPERATOR);
    browser = await signedIn(t.app, t.services, { email: 'ops@example.com', workspaceIds: [workspaceId] });
    const api = client(t.app, ws.key);
    for (let i = 0; i < 20; i++) {
      assert.equal((await api.send({ phone: au(i), channel: 'sms' })).statusCode, 201);
      clock.advance(1000);
    }
    clock.advance(301_000);
    await t.services.verifications.expireDue();
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
  });
  after(() => t.close());

  test('listed as the country with its reason, its settings in the form; lifted by its button; bad fields are 400', async () => {
    const page = await browser.get('/dashboard/fraud');
    assert.match(page.body, /<td data-label="Range or country">AU \(country\)<\/td>/);
    assert.match(page.body, /Low conversion: 0 of the last 20 codes to AU verified/);
    assert.match(page.body, /<input type="hidden" name="country" value="AU"/);
    assert.match(page.body, /name="country_conversion_sends"[^>]*value="20"/);
    assert.match(page.body, /name="country_conversion_percent"[^>]*value="10"/);
    for (const bad of ['au', 'AU\u0000', 'ZZ', 'A'.repeat(10_000)]) {
      const res = await browser.post('/dashboard/fraud/lift', { country: bad }, { from: '/dashboard/fraud' });
      assert.equal(res.statusCode, 400, JSON.stringify(bad.slice(0, 10)));
    }
    const lifted = await browser.post(
      '/dashboard/fraud/lift',
      { country: 'AU' },
      { from: '/dashboard/fraud' },
    );
    assert.equal(lifted.statusCode, 302);
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(block?.lifted_by, 'ops@example.com');
    const again = await browser.post(
      '/dashboard/fraud/lift',
      { country: 'AU' },
      { from: '/dashboard/fraud' },
    );
    assert.equal(again.statusCode, 404);
  });
});
