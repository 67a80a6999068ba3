// The pumping guard's conversion signal (docs/api.md "Pumping guard"): a range whose last N finished codes (default
// 50, in the last day, after its last block) were less than 10% verified is blocked for block_seconds by the
// sweeper's judgement; sends to it are then refused with 403 destination_blocked, reason low_conversion.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { client, codeFor, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertProblem, clockedApp } from '../helpers/verification.js';

const RANGE = '+61412345';
/** The i-th number of a range, spread across its 1,000 numbers. */
const spread = (range: string, i: number) => `${range}${String((i * 37) % 1000).padStart(3, '0')}`;

describe('pumping guard: conversion signal', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  const apps: TestApp[] = [];

  beforeEach(async () => {
    ({ t, clock } = await clockedApp());
    apps.push(t);
    // The range limit raised (the helper's default): only the conversion signal is on trial here.
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
  });
  after(async () => {
    for (const a of apps) await a.close();
  });

  /** `count` sends to the range, the first `verified` of them checked with their code; then every other expires. */
  async function sendRange(range: string, count: number, verified: number, from = 0): Promise<void> {
    for (let i = from; i < from + count; i++) {
      const phone = spread(range, i);
      const res = await api.send({ phone, channel: 'sms' });
      assert.equal(res.statusCode, 201, res.body);
      if (i - from < verified) {
        const id = (res.json() as { id: string }).id;
        const code = await codeFor(t.services, phone);
        assert.equal((await api.check({ verification_id: id, code })).statusCode, 200);
      }
      clock.advance(1000);
    }
    clock.advance(301_000);
    await t.services.verifications.expireDue();
  }

  const sendTo = (phone: string) => api.send({ phone, channel: 'sms' });

  test('3 of the last 50 codes verified: the range is blocked, the next send is 403 low_conversion', async () => {
    await sendRange(RANGE, 50, 3);
    assert.equal((await sendTo(spread(RANGE, 60))).statusCode, 201, 'not blocked before the judgement');
    clock.advance(301_000);
    await t.services.verifications.expireDue();
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, range: RANGE }]);

    const res = await sendTo(spread(RANGE, 70));
    const problem = assertProblem(res, 403, 'destination_blocked');
    assert.equal(problem.reason, 'low_conversion');
    assert.equal(problem.retry_after, 3600);
    assert.equal(res.headers['retry-after'], '3600');
    assert.match(String(problem.detail), /\+61412345.*verified/);
    assert.equal((await sendTo('+61412346000')).statusCode, 201, 'another range is unaffected');

    const [block, ...more] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(more.length, 0);
    assert.equal(block?.reason, 'low_conversion');
    assert.equal(block?.range, RANGE);
    // The newest 50: the send after the first 50 (expired) pushed the oldest (verified) out.
    assert.equal(block?.distinct_numbers, 50);
    assert.equal(block?.verified, 2);
    assert.equal(block?.why, 'Low conversion: 2 of the last 50 codes verified');
    assert.equal(block?.refused, 1);
    assert.equal(block?.active, true);
    // Judged again: a block in force is left alone.
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
  });

  test('a range at 20% is not blocked; nor one with fewer than N finished sends', async () => {
    await sendRange(RANGE, 50, 10);
    await sendRange('+61412346', 49, 0);
    // Pending codes are not judged: 10 more sends to the second range, still pending.
    for (let i = 100; i < 110; i++) assert.equal((await sendTo(spread('+61412346', i))).statusCode, 201);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    assert.equal((await sendTo(spread(RANGE, 80))).statusCode, 201);
    assert.deepEqual(await t.services.fraud.listBlocks(workspaceId), []);
  });

  test('an allow-listed range (or a prefix covering it) is not blocked', async () => {
    await t.services.fraud.allow(workspaceId, '+614123', OPERATOR);
    await sendRange(RANGE, 50, 0);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    await t.services.fraud.disallow(workspaceId, '+614123', OPERATOR);
    await t.services.fraud.allow(workspaceId, RANGE, OPERATOR);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    await t.services.fraud.disallow(workspaceId, RANGE, OPERATOR);
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
  });

  test('the block ends after block_seconds and is not re-created from the old evidence', async () => {
    await t.services.fraud.setSettings(workspaceId, { block_seconds: 600 }, OPERATOR);
    await sendRange(RANGE, 50, 0);
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
    clock.advance(599_000);
    assertProblem(await sendTo(spread(RANGE, 1)), 403, 'destination_blocked');
    clock.advance(1000);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [], 'the evidence predates the block');
    assert.equal((await sendTo(spread(RANGE, 1))).statusCode, 201);
    // New evidence after the block, as bad again: blocked again.
    clock.advance(1000);
    await sendRange(RANGE, 50, 2, 200);
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
    assert.equal((await t.services.fraud.listBlocks(workspaceId)).length, 2);
  });

  test('a block lifted by hand ends at once and is not re-created from the old evidence', async () => {
    await sendRange(RANGE, 50, 0);
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
    assertProblem(await sendTo(spread(RANGE, 1)), 403, 'destination_blocked');
    const { lifted } = await t.services.fraud.lift(workspaceId, RANGE, {
      kind: 'account',
      id: 'usr_ops',
      email: 'ops@example.com',
    });
    assert.equal(lifted.length, 1);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    assert.equal((await sendTo(spread(RANGE, 1))).statusCode, 201);
  });

  test('conversion_percent 0 turns the signal off; N is the workspace setting', async () => {
    await t.services.fraud.setSettings(workspaceId, { conversion_percent: 0 }, OPERATOR);
    await sendRange(RANGE, 50, 0);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    // On again with N = 60: 50 finished sends say nothing yet.
    await t.services.fraud.setSettings(
      workspaceId,
      { conversion_percent: 10, conversion_sends: 60 },
      OPERATOR,
    );
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    await t.services.fraud.setSettings(workspaceId, { conversion_sends: 50 }, OPERATOR);
    assert.equal((await t.services.fraud.judgeConversion()).length, 1);
  });

  test('settings: defaults, set through the service, bad values refused naming the field', async () => {
    const before = await t.services.fraud.getSettings(workspaceId);
    assert.equal(before.conversion_sends, 50);
    assert.equal(before.conversion_percent, 10);
    const set = await t.services.fraud.setSettings(
      workspaceId,
      {
        conversion_sends: 100,
        conversion_percent: 25,
      },
      OPERATOR,
    );
    assert.equal(set.conversion_sends, 100);
    assert.equal(set.conversion_percent, 25);
    assert.equal(set.range_limit, 1000, 'the others keep their values');
    for (const [name, bad] of [
      ['conversion_sends', 9],
      ['conversion_sends', 1001],
      ['conversion_sends', -50],
      ['conversion_sends', '50'],
      ['conversion_sends', 50.5],
      ['conversion_percent', 101],
      ['conversion_percent', -1],
      ['conversion_percent', Number.NaN],
      ['conversion_percent', '10\u0000'],
      ['conversion_percent', 1e300],
    ] as const) {
      await assert.rejects(
        t.services.fraud.setSettings(workspaceId, { [name]: bad }, OPERATOR),
        (err: Error) => {
          assert.match(JSON.stringify(err), new RegExp(name));
          return true;
        },
      );
    }
    assert.deepEqual(await t.services.fraud.getSettings(workspaceId), set);
  });

  test('two judgements at once write one block', async () => {
    await sendRange(RANGE, 50, 0);
    const [a, b] = await Promise.all([
      t.services.fraud.judgeConversion(),
      t.services.fraud.judgeConversion(),
    ]);
    assert.equal(a.length + b.length, 1);
    assert.equal((await t.services.fraud.listBlocks(workspaceId)).length, 1);
  });
});
