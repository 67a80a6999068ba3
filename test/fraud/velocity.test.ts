// The pumping guard's velocity rule (docs/api.md "Pumping guard"): more than 10 distinct numbers of one range (all
// but the last 3 digits alike) sent to within 10 minutes block the range for an hour; the send that trips it is
// refused; refused sends create nothing and reach no carrier.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertProblem, clockedApp } from '../helpers/verification.js';

const MINUTE = 60_000;
/** Numbers of the range +61412345 (AU mobiles). */
const inRange = (i: number) => `+61412345${String(i).padStart(3, '0')}`;

describe('pumping guard: range velocity', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  let key: string;
  const apps: TestApp[] = [];

  beforeEach(async () => {
    ({ t, clock } = await clockedApp());
    apps.push(t);
    const ws = await seedWorkspace(t.services, { name: 'Acme', pumpingGuard: 'default' });
    workspaceId = ws.workspaceId;
    key = ws.key;
    api = client(t.app, ws.key);
  });
  after(async () => {
    for (const a of apps) await a.close();
  });

  const sendStatus = async (phone: string) => (await api.send({ phone, channel: 'sms' })).statusCode;
  const rowsTo = async (phones: string[]) =>
    (await t.store.db.selectFrom('verifications').select('id').where('phone', 'in', phones).execute()).length;

  function assertBlocked(res: Awaited<ReturnType<typeof api.send>>, retryAfter: number) {
    const problem = assertProblem(res, 403, 'destination_blocked');
    assert.equal(problem.reason, 'range_velocity');
    assert.equal(problem.retry_after, retryAfter);
    assert.equal(res.headers['retry-after'], String(retryAfter));
    assert.match(String(problem.detail), /\+61412345/);
  }

  test('the 11th distinct number of a range within 10 minutes is refused, and so is every later send to it', async () => {
    for (let i = 0; i < 10; i++) {
      assert.equal(await sendStatus(inRange(i)), 201, `number ${i + 1} of 10`);
      clock.advance(10_000);
    }
    assertBlocked(await api.send({ phone: inRange(10) }), 3600);
    clock.advance(60_000);
    // Later sends: new numbers, and numbers sent to before, alike; the seconds count down.
    assertBlocked(await api.send({ phone: inRange(11) }), 3540);
    assertBlocked(await api.send({ phone: inRange(0) }), 3540);
    // Nothing of the refused sends was stored or sent.
    assert.equal(await rowsTo([inRange(10), inRange(11)]), 0);
    assert.equal(await rowsTo([inRange(0)]), 1);
    assert.equal((await t.services.outbox.list({ to: inRange(10), limit: 5 })).length, 0);

    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.ok(block);
    assert.equal(block.range, '+61412345');
    assert.equal(block.reason, 'range_velocity');
    assert.equal(block.distinct_numbers, 11);
    assert.equal(block.refused, 3);
    assert.equal(block.active, true);
  });

  test('other ranges, and the same range in another workspace, are unaffected', async () => {
    for (let i = 0; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assert.equal(await sendStatus(inRange(10)), 403);
    assert.equal(await sendStatus('+61412346000'), 201);
    assert.equal(await sendStatus('+61412344999'), 201);
    const other = client(
      t.app,
      (await seedWorkspace(t.services, { name: 'Other', pumpingGuard: 'default' })).key,
    );
    assert.equal((await other.send({ phone: inRange(10) })).statusCode, 201);
  });

  test('the same number sent to again counts once', async () => {
    for (let n = 0; n < 5; n++) assert.equal(await sendStatus(inRange(0)), 201);
    for (let i = 1; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    // Ten distinct numbers: a resend to any of them still goes (the per-number limit aside).
    assert.equal(await sendStatus(inRange(5)), 201);
    assert.equal(await sendStatus(inRange(10)), 403);
  });

  test('numbers older than the window no longer count', async () => {
    for (let i = 0; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    clock.advance(10 * MINUTE + 1);
    for (let i = 10; i < 20; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assert.equal(await sendStatus(inRange(20)), 403);
  });

  test('the block ends after an hour by the clock', async () => {
    for (let i = 0; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assert.equal(await sendStatus(inRange(10)), 403);
    clock.advance(3600_000 - 1000);
    assertBlocked(await api.send({ phone: inRange(10) }), 1);
    clock.advance(1000);
    assert.equal(await sendStatus(inRange(10)), 201);
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(block?.active, false);
    assert.equal(block?.lifted_at, null);
  });

  test('an allow-listed number or range is never blocked', async () => {
    await t.services.fraud.allow(workspaceId, '+61412345999', OPERATOR);
    for (let i = 0; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assert.equal(await sendStatus(inRange(10)), 403);
    assert.equal(await sendStatus(inRange(999)), 201, 'the allowed number goes through the block');

    await t.services.fraud.allow(workspaceId, '+614123', OPERATOR);
    for (let i = 20; i < 60; i++)
      assert.equal(await sendStatus(inRange(i)), 201, `allowed range, number ${i}`);
    await t.services.fraud.disallow(workspaceId, '+614123', OPERATOR);
    assert.equal(await sendStatus(inRange(60)), 403, 'disallowed: the block holds again');
  });

  test('a block lifted by hand lets sends through at once, and the range starts afresh', async () => {
    for (let i = 0; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assert.equal(await sendStatus(inRange(10)), 403);
    const lifted = await t.services.fraud.lift(workspaceId, '+61412345', {
      kind: 'account',
      id: 'usr_ops',
      email: 'ops@example.com',
    });
    assert.equal(lifted.lifted.length, 1);
    for (let i = 10; i < 20; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assert.equal(await sendStatus(inRange(20)), 403, 'ten new numbers trip it again');
    const blocks = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(blocks.length, 2);
    assert.equal(blocks[1]?.lifted_by, 'ops@example.com');
    assert.equal(blocks[1]?.active, false);
    await assert.rejects(t.services.fraud.lift(workspaceId, '+61412399', OPERATOR), { code: 'not_found' });
  });

  test('settings changed take effect at the next send', async () => {
    await t.services.fraud.setSettings(workspaceId, { range_limit: 3, block_seconds: 120 }, OPERATOR);
    for (let i = 0; i < 3; i++) assert.equal(await sendStatus(inRange(i)), 201);
    assertBlocked(await api.send({ phone: inRange(3) }), 120);
    clock.advance(120_000);
    await t.services.fraud.setSettings(workspaceId, { range_window_seconds: 60 }, OPERATOR);
    assert.equal(await sendStatus(inRange(4)), 201, 'the earlier numbers are past the 60 s window');
  });

  test('a refused send does not count against the per-number send limit', async () => {
    await t.services.fraud.setSettings(
      workspaceId,
      {
        range_limit: 1,
        range_window_seconds: 60,
        block_seconds: 60,
      },
      OPERATOR,
    );
    assert.equal(await sendStatus(inRange(0)), 201);
    for (let n = 0; n < 10; n++) assert.equal(await sendStatus(inRange(1)), 403);
    clock.advance(60_000);
    // Ten refusals inside the send limit's 10 minutes, yet the number has all its 5 sends.
    for (let n = 0; n < 5; n++) assert.equal(await sendStatus(inRange(1)), 201, `send ${n + 1} of 5`);
    assert.equal(await sendStatus(inRange(1)), 429);
  });

  test('a refusal under an Idempotency-Key is not kept: once the block is lifted, the retry sends', async () => {
    for (let i = 0; i < 10; i++) assert.equal(await sendStatus(inRange(i)), 201);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/otp/send',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': 'k-1',
        },
        payload: JSON.stringify({ phone: inRange(10) }),
      });
    assertBlocked(await send(), 3600);
    await t.services.fraud.lift(workspaceId, '+61412345', {
      kind: 'account',
      id: 'usr_ops',
      email: 'ops@example.com',
    });
    const retried = await send();
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
  });
});
