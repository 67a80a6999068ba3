// Test mode through /v1 (docs/api.md, "Test mode"): a pv_test_ key and a pv_live_ key of one workspace never see
// each other's verifications (404 exactly like an unknown id, for get, check by id or by phone, and cancel, both
// ways); supersede, the send limit and "one pending code per number" are per mode, also when a live and a test send
// race; test codes go to the outbox (mode test) through the test provider; test numbers give their fixed code to
// test keys only; test sends neither count in the pumping guard nor hold the failed-guess ceiling; Idempotency-Keys
// are kept apart by mode; webhook events carry the mode.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import { TEST_PROVIDER_NAME } from '../../src/delivery/dev-provider.js';
import type { Check, Problem, Verification } from '../helpers/api-types.js';
import { type Client, client, codeFor, json, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertProblem, clockedApp, liveAndTestClients, sendOk, wrongCode } from '../helpers/verification.js';
import { insertRows } from '../helpers/verification-rows.js';
import { hookedApp, messageRows } from '../webhooks/helpers.js';

/** The answer to an id the key must not see: exactly the 404 of an unknown id (request_id aside). */
function assertUnknown(res: LightMyRequestResponse, unknown: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 404, res.body);
  const { request_id: _, detail, ...problem } = json<Problem>(res);
  const { request_id: __, detail: unknownDetail, ...expected } = json<Problem>(unknown);
  assert.deepEqual(problem, expected);
  assert.equal(problem.code, 'not_found');
  // The detail names the id asked for, as for any unknown id.
  assert.match(String(detail), /^No verification ver_/);
  assert.match(String(unknownDetail), /^No verification ver_/);
}

async function modes(t: TestApp) {
  const { testKey, ...clients } = await liveAndTestClients(t, { name: 'Acme' });
  assert.match(testKey, /^pv_test_[0-9A-Za-z]{38}$/);
  return clients;
}

describe('test mode: live and test verifications are apart', () => {
  let t: TestApp;
  let clock: FakeClock;
  let live: Client;
  let testApi: Client;
  let workspaceId: string;

  before(async () => {
    ({ t, clock } = await clockedApp());
    ({ live, test: testApi, workspaceId } = await modes(t));
  });
  after(() => t.close());

  test('a test send answers mode "test" and a live send mode "live"; otherwise the same fields', async () => {
    const a = await sendOk(live, { phone: '+61412340001' });
    const b = await sendOk(testApi, { phone: '+61412340002' });
    assert.equal(a.mode, 'live');
    assert.equal(b.mode, 'test');
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort());
    assert.equal(json<Verification>(await live.get(a.id)).mode, 'live');
    assert.equal(json<Verification>(await testApi.get(b.id)).mode, 'test');
  });

  for (const [from, to] of [
    ['live', 'test'],
    ['test', 'live'],
  ] as const) {
    test(`a ${from} verification is not found by the ${to} key: get, check by id, cancel (404 as an unknown id)`, async () => {
      const owner = from === 'live' ? live : testApi;
      const other = from === 'live' ? testApi : live;
      const phone = from === 'live' ? '+61412340011' : '+61412340012';
      const sent = await sendOk(owner, { phone });
      const code = await codeFor(t.services, phone);
      const unknownId = `ver_${'x'.repeat(24)}`;

      assertUnknown(await other.get(sent.id), await other.get(unknownId));
      assertUnknown(
        await other.check({ verification_id: sent.id, code }),
        await other.check({ verification_id: unknownId, code }),
      );
      assertUnknown(await other.cancel(sent.id), await other.cancel(unknownId));

      // Nothing the other key tried spent an attempt or changed the verification.
      const after = json<Verification>(await owner.get(sent.id));
      assert.equal(after.status, 'pending');
      assert.equal(after.attempts, 0);
      const checked = json<Check>(await owner.check({ verification_id: sent.id, code }));
      assert.equal(checked.verified, true);
    });

    test(`check by phone with the ${to} key does not see the ${from} code (404 no_verification)`, async () => {
      const owner = from === 'live' ? live : testApi;
      const other = from === 'live' ? testApi : live;
      const phone = from === 'live' ? '+61412340021' : '+61412340022';
      await sendOk(owner, { phone });
      const code = await codeFor(t.services, phone);
      assertProblem(await other.check({ phone, code }), 404, 'no_verification');
      assert.equal(json<Check>(await owner.check({ phone, code })).verified, true);
    });
  }

  test('supersede is per mode: a test send leaves the live code pending, and the reverse', async () => {
    const phone = '+61412340031';
    const liveOne = await sendOk(live, { phone });
    const testOne = await sendOk(testApi, { phone });
    assert.equal(json<Verification>(await live.get(liveOne.id)).status, 'pending');
    const liveTwo = await sendOk(live, { phone });
    assert.equal(json<Verification>(await testApi.get(testOne.id)).status, 'pending');
    assert.equal(json<Verification>(await live.get(liveOne.id)).status, 'canceled');
    const testTwo = await sendOk(testApi, { phone });
    assert.equal(json<Verification>(await testApi.get(testOne.id)).status, 'canceled');
    assert.equal(json<Verification>(await live.get(liveTwo.id)).status, 'pending');
    assert.equal(json<Verification>(await testApi.get(testTwo.id)).status, 'pending');
  });

  test('the send limit is per mode: five test sends leave the five live sends of the window', async () => {
    const phone = '+61412340041';
    for (let i = 0; i < 5; i++) await sendOk(testApi, { phone });
    assertProblem(await testApi.send({ phone }), 429, 'rate_limited');
    for (let i = 0; i < 5; i++) await sendOk(live, { phone });
    assertProblem(await live.send({ phone }), 429, 'rate_limited');
    clock.advance(601_000);
  });

  test('a live and a test send to one number at once both stand: one pending code per mode', async () => {
    for (let round = 0; round < 4; round++) {
      const phone = `+6141234005${round}`;
      const answers = await Promise.all([
        live.send({ phone }),
        testApi.send({ phone }),
        live.send({ phone }),
        testApi.send({ phone }),
      ]);
      for (const res of answers) assert.equal(res.statusCode, 201, res.body);
      const [l1, t1, l2, t2] = answers.map((r) => json<Verification>(r));
      assert.deepEqual([l1?.mode, t1?.mode, l2?.mode, t2?.mode], ['live', 'test', 'live', 'test']);
      const statuses = async (api: Client, ids: string[]) =>
        Promise.all(ids.map(async (id) => json<Verification>(await api.get(id)).status));
      const liveStatuses = await statuses(live, [l1?.id ?? '', l2?.id ?? '']);
      const testStatuses = await statuses(testApi, [t1?.id ?? '', t2?.id ?? '']);
      assert.deepEqual(liveStatuses.filter((s) => s === 'pending').length, 1, `live ${liveStatuses}`);
      assert.deepEqual(testStatuses.filter((s) => s === 'pending').length, 1, `test ${testStatuses}`);
    }
  });

  test('a test code goes to the outbox through the test provider, and the timeline says so', async () => {
    const phone = '+61412340061';
    const sent = await sendOk(testApi, { phone, channel: 'sms' });
    assert.equal(sent.delivery.ok, true);
    const row = await t.store.db
      .selectFrom('verifications')
      .select(['delivery_provider', 'mode'])
      .where('id', '=', sent.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { delivery_provider: TEST_PROVIDER_NAME, mode: 'test' });
    const message = await t.store.db
      .selectFrom('outbox_messages')
      .select(['id', 'mode'])
      .where('verification_id', '=', sent.id)
      .executeTakeFirstOrThrow();
    assert.equal(message.mode, 'test');
    assert.equal(sent.delivery.provider_id, message.id);
    const record = await t.services.verifications.inspect(workspaceId, sent.id);
    const handed = record.events.find((e) => e.kind === 'handed_over');
    assert.equal(handed?.detail.provider, TEST_PROVIDER_NAME);
    assert.equal(record.verification.mode, 'test');
  });

  test('Idempotency-Keys are kept apart by mode: the same key makes one send in each', async () => {
    const headers = (key: string) => ({
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': 'order-7',
    });
    const keys = {
      live: (await t.services.keys.createKey({ workspaceId, name: 'l' }, OPERATOR)).key,
      test: (await t.services.keys.createKey({ workspaceId, name: 't', mode: 'test' }, OPERATOR)).key,
    };
    const send = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/otp/send',
        headers: headers(key),
        payload: JSON.stringify({ phone: '+61412340071' }),
      });
    const first = await send(keys.live);
    const second = await send(keys.test);
    const replay = await send(keys.test);
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.headers['idempotent-replayed'], undefined, 'the test request ran: no live answer');
    assert.notEqual(json<Verification>(second).id, json<Verification>(first).id);
    assert.equal(json<Verification>(second).mode, 'test');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(json<Verification>(replay).id, json<Verification>(second).id);
  });
});

describe('test numbers: fixed codes for test keys only', () => {
  let t: TestApp;
  let live: Client;
  let testApi: Client;
  let workspaceId: string;
  const PHONE = '+61412340101';

  before(async () => {
    ({ t } = await clockedApp());
    ({ live, test: testApi, workspaceId } = await modes(t));
    await t.services.testNumbers.addTestNumber({ workspaceId, phone: PHONE, code: '135790' }, OPERATOR);
  });
  after(() => t.close());

  test("a test key's send to a test number takes the fixed code, whatever code_length says; the check succeeds", async () => {
    const sent = await sendOk(testApi, { phone: PHONE, code_length: 4 });
    assert.equal(sent.mode, 'test');
    const wrong = json<Check>(await testApi.check({ verification_id: sent.id, code: '135791' }));
    assert.equal(wrong.verified, false);
    const right = json<Check>(await testApi.check({ verification_id: sent.id, code: '135790' }));
    assert.equal(right.verified, true);
    // Stored like any code: a keyed hash, never the code itself.
    const row = await t.store.db
      .selectFrom('verifications')
      .select(['code_hash', 'code_length'])
      .where('id', '=', sent.id)
      .executeTakeFirstOrThrow();
    assert.match(row.code_hash, /^[0-9a-f]{64}$/);
    assert.equal(row.code_length, 6);
    // A national number finds the test number too (it is parsed like any number).
    const national = await sendOk(testApi, { phone: '0412 340 101', country: 'AU' });
    assert.equal(json<Check>(await testApi.check({ phone: PHONE, code: '135790' })).id, national.id);
  });

  test('a live key sending to a test number is an ordinary live send: a random code, through the development provider', async () => {
    const sent = await sendOk(live, { phone: PHONE });
    assert.equal(sent.mode, 'live');
    const delivered = await codeFor(t.services, PHONE);
    const fixed = json<Check>(await live.check({ verification_id: sent.id, code: '135790' }));
    // The fixed code is only right by chance (the random code happened to be it).
    assert.equal(fixed.verified, delivered === '135790');
    if (!fixed.verified) {
      assert.equal(
        json<Check>(await live.check({ verification_id: sent.id, code: delivered })).verified,
        true,
      );
    }
    const row = await t.store.db
      .selectFrom('verifications')
      .select('delivery_provider')
      .where('id', '=', sent.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.delivery_provider, 'development');
  });

  test('another number gets a random code in test mode, read from the outbox like any test code', async () => {
    const phone = '+61412340102';
    const sent = await sendOk(testApi, { phone, code_length: 8 });
    const code = await codeFor(t.services, phone);
    assert.equal(code.length, 8);
    assert.equal(json<Check>(await testApi.check({ verification_id: sent.id, code })).verified, true);
  });

  test('a removed test number gives test keys random codes again', async () => {
    const phone = '+61412340103';
    await t.services.testNumbers.addTestNumber({ workspaceId, phone, code: '0000' }, OPERATOR);
    await t.services.testNumbers.removeTestNumber({ workspaceId, phone }, OPERATOR);
    const sent = await sendOk(testApi, { phone });
    const code = await codeFor(t.services, phone);
    assert.equal(code.length, 6);
    assert.equal(json<Check>(await testApi.check({ verification_id: sent.id, code })).verified, true);
  });
});

describe('test mode and the live abuse controls', () => {
  let t: TestApp;
  let live: Client;
  let testApi: Client;
  let workspaceId: string;

  before(async () => {
    ({ t } = await clockedApp());
    ({
      workspaceId,
      live,
      test: testApi,
    } = await liveAndTestClients(t, { name: 'Guarded', pumpingGuard: 'default' }));
  });
  after(() => t.close());

  test('test sends neither count in the pumping guard nor meet its block', async () => {
    await t.services.fraud.setSettings(workspaceId, { range_limit: 1 }, OPERATOR);
    // Many numbers of one range in test mode: none is refused, none is counted.
    for (let i = 0; i < 5; i++) await sendOk(testApi, { phone: `+6141234020${i}` });
    // The live side sees the range as new: its first number passes, its second is refused.
    await sendOk(live, { phone: '+61412340207' });
    const refused = await live.send({ phone: '+61412340208' });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(json<Problem>(refused).code, 'destination_blocked');
    // The block holds for live sends only.
    await sendOk(testApi, { phone: '+61412340209' });
    // Refused sends are live: the test sends left no row.
    const refusals = await t.store.db
      .selectFrom('refused_sends')
      .select('phone')
      .where('workspace_id', '=', workspaceId)
      .execute();
    assert.deepEqual(
      refusals.map((r) => r.phone),
      ['+61412340208'],
    );
  });

  test('test sends are no evidence for the conversion signal: only live ranges are judged', async () => {
    const now = t.services.clock.now();
    const rows = (range: string, mode: 'live' | 'test') =>
      Array.from({ length: 60 }, (_, i) => ({
        workspaceId,
        phone: `${range}${String(i).padStart(3, '0')}`,
        createdAt: now - 3_600_000 + i * 1000,
        status: 'expired' as const,
        mode,
      }));
    // Sixty codes never verified in each range: the test range's say nothing, the live range's block it.
    await insertRows(t.store.db, [...rows('+61417770', 'test'), ...rows('+61418880', 'live')]);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, range: '+61418880' }]);
  });

  test("test checks' wrong codes never hold a live number's failed-guess ceiling", async () => {
    await t.services.fraud.setSettings(workspaceId, { range_limit: 1000 }, OPERATOR);
    await t.services.workspaces.setLimits({ workspaceId, limits: { guess_limit: 2 } }, OPERATOR);
    // Outside the range the test above blocked.
    const phone = '+61419990301';
    for (let i = 0; i < 3; i++) {
      const sent = await sendOk(testApi, { phone, max_attempts: 3 });
      const code = await codeFor(t.services, phone);
      for (let j = 0; j < 3; j++) await testApi.check({ verification_id: sent.id, code: wrongCode(code) });
    }
    const failures = await t.store.db
      .selectFrom('guess_failures')
      .select('phone')
      .where('workspace_id', '=', workspaceId)
      .execute();
    assert.equal(failures.length, 0, 'no test failure was counted');
    const sent = await sendOk(live, { phone });
    const code = await codeFor(t.services, phone);
    assert.equal(json<Check>(await live.check({ verification_id: sent.id, code })).verified, true);
  });

  test('the request limit counts test and live requests together (one window per workspace)', async () => {
    const a = await live.ping();
    const b = await testApi.ping();
    const remaining = (res: LightMyRequestResponse) =>
      Number(/r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
    assert.equal(remaining(b), remaining(a) - 1);
  });
});

describe('test mode: webhook events carry the mode', () => {
  test('data.mode is "test" for a test send and "live" for a live one', async () => {
    const hooked = await hookedApp();
    try {
      const testKey = await hooked.t.services.keys.createKey(
        { workspaceId: hooked.workspaceId, name: 'suite', mode: 'test' },
        OPERATOR,
      );
      const liveSent = await sendOk(hooked.api, { phone: '+61412340401' });
      const testSent = await sendOk(client(hooked.t.app, testKey.key), { phone: '+61412340402' });
      const created = (await messageRows(hooked.t))
        .filter((m) => m.type === 'verification.created')
        .map((m) => (JSON.parse(m.body) as { data: Verification }).data);
      const modeOf = (id: string) => created.find((d) => d.id === id)?.mode;
      assert.equal(modeOf(liveSent.id), 'live');
      assert.equal(modeOf(testSent.id), 'test');
    } finally {
      await hooked.close();
    }
  });
});
