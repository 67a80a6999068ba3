// Issue 12, item 4: Idempotency-Key on POST /v1/otp/send (docs/api.md, "Idempotent sends"). The same key with the
// same body within 24 hours replays the first answer and sends nothing; another body is 422; a duplicate while the
// first runs is 409; keys belong to the workspace; 429s and validation failures are never kept.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENCY_LEASE_MS } from '../../src/verification/idempotency.js';
import type { Problem, Verification } from '../helpers/api-types.js';
import { client, codeFor, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertProblem, clockedApp } from '../helpers/verification.js';

// Fresh AU mobiles: +6141239xxxx, never ending 0998/0999 (the development provider's failures).
let phoneSeq = 0;
function freshPhone(): string {
  phoneSeq += 1;
  return `+6141239${String(phoneSeq).padStart(4, '0')}`;
}

describe('Idempotency-Key on POST /v1/otp/send', () => {
  let t: TestApp;
  let clock: FakeClock;
  let key = '';
  let workspaceId = '';

  before(async () => {
    ({ t, clock } = await clockedApp());
    ({ key, workspaceId } = await seedWorkspace(t.services, { name: 'Acme' }));
  });
  after(() => t.close());

  /** POST /v1/otp/send with `idempotencyKey` (none when undefined) and `body` (an object, or raw JSON text). */
  const send = (idempotencyKey: string | undefined, body: unknown, apiKey = key) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/otp/send',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const verificationsTo = async (phone: string) =>
    t.store.db.selectFrom('verifications').select(['id', 'status']).where('phone', '=', phone).execute();
  const messagesTo = (phone: string) => t.services.outbox.list({ to: phone, limit: 100 });
  const keyRow = (k: string, ws = workspaceId) =>
    t.store.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', ws)
      .where('key', '=', k)
      .executeTakeFirst();

  test('the same key and body replay the first answer: same status and body bytes, Idempotent-Replayed: true, nothing sent', async () => {
    const phone = freshPhone();
    const body = { phone, channel: 'sms', metadata: { order: 42 } };
    const first = await send('replay-1', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is not a replay');

    for (let i = 0; i < 3; i++) {
      const again = await send('replay-1', body);
      assert.equal(again.statusCode, 201);
      assert.equal(again.body, first.body, 'byte for byte the first body');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers['content-type'], first.headers['content-type']);
      assert.notEqual(
        again.headers['x-request-id'],
        first.headers['x-request-id'],
        'each answer has its own id',
      );
    }
    // One verification, still pending (nothing superseded it), and one message in the outbox.
    const id = json<Verification>(first).id;
    assert.deepEqual(await verificationsTo(phone), [{ id, status: 'pending' }]);
    assert.equal((await messagesTo(phone)).length, 1);

    // The stored answer is the body as sent, which holds no code.
    const code = await codeFor(t.services, phone);
    const row = await keyRow('replay-1');
    assert.equal(row?.state, 'done');
    assert.equal(row?.response_status, 201);
    assert.equal(row?.response_body, first.body);
    const values: unknown[] = [];
    JSON.parse(String(row?.response_body), (name, value) => {
      assert.notEqual(name, 'code');
      values.push(value);
      return value;
    });
    assert.ok(!values.includes(code), 'the code is in no stored field');
  });

  test('replays spend nothing of the send limit (5 per number per 10 minutes)', async () => {
    const phone = freshPhone();
    assert.equal((await send('limit-1', { phone })).statusCode, 201);
    for (let i = 0; i < 10; i++) assert.equal((await send('limit-1', { phone })).statusCode, 201);
    // Had the ten replays counted, these four would be 429s.
    for (let i = 0; i < 4; i++) assert.equal((await send(undefined, { phone })).statusCode, 201);
    assertProblem(await send(undefined, { phone }), 429, 'rate_limited');
  });

  test('the same key with another body is 422 idempotency_key_reused; nothing is sent; the key still replays', async () => {
    const phone = freshPhone();
    const first = await send('reuse-1', { phone });
    assert.equal(first.statusCode, 201);
    const others: unknown[] = [
      { phone: freshPhone() },
      { phone, channel: 'sms' },
      // The fingerprint is the bytes as sent: the same JSON written differently is another request.
      `{ "phone": "${phone}" }`,
    ];
    for (const other of others) {
      const res = await send('reuse-1', other);
      const problem = assertProblem(res, 422, 'idempotency_key_reused', undefined, JSON.stringify(other));
      assert.match(problem.detail, /different request/);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.equal((await verificationsTo(phone)).length, 1);
    const again = await send('reuse-1', { phone });
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });

  test('20 concurrent sends with one key: one verification, one 201, the rest 409 in use (Retry-After: 1) or its replay', async () => {
    for (let round = 0; round < 3; round++) {
      const phone = freshPhone();
      const replies = await Promise.all(Array.from({ length: 20 }, () => send(`race-${round}`, { phone })));
      const created = replies.filter(
        (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined,
      );
      assert.equal(created.length, 1, `statuses: ${replies.map((r) => r.statusCode)}`);
      const [original] = created;
      assert.ok(original);
      for (const r of replies) {
        if (r === original) continue;
        if (r.statusCode === 201) {
          assert.equal(r.headers['idempotent-replayed'], 'true');
          assert.equal(r.body, original.body);
        } else {
          const problem = assertProblem(r, 409, 'idempotency_key_in_use');
          assert.equal(r.headers['retry-after'], '1');
          assert.equal(problem.retry_after, 1);
        }
      }
      assert.deepEqual(await verificationsTo(phone), [
        { id: json<Verification>(original).id, status: 'pending' },
      ]);
      assert.equal((await messagesTo(phone)).length, 1);
    }
  });

  test('20 concurrent sends with one key and different bodies: exactly one is sent', async () => {
    const phones = Array.from({ length: 20 }, () => freshPhone());
    const replies = await Promise.all(phones.map((phone) => send('race-mixed', { phone })));
    const created = replies.filter((r) => r.statusCode === 201);
    assert.equal(created.length, 1, `statuses: ${replies.map((r) => r.statusCode)}`);
    for (const r of replies) {
      if (r.statusCode !== 201) assert.ok([409, 422].includes(r.statusCode), r.body);
    }
    let sent = 0;
    for (const phone of phones) sent += (await verificationsTo(phone)).length;
    assert.equal(sent, 1);
  });

  test('keys belong to the workspace: the same key in another workspace is another key', async () => {
    const other = await seedWorkspace(t.services, { name: 'Other' });
    const phone = freshPhone();
    const mine = await send('shared-key', { phone });
    const theirs = await send('shared-key', { phone }, other.key);
    assert.equal(mine.statusCode, 201);
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(json<Verification>(theirs).id, json<Verification>(mine).id);
    // Another body under the same key in the other workspace is no reuse either.
    const elsewhere = await send('shared-key-2', { phone: freshPhone() }, other.key);
    assert.equal(elsewhere.statusCode, 201);
    assert.equal((await send('shared-key-2', { phone: freshPhone() })).statusCode, 201);
    // Each workspace replays its own answer.
    assert.equal((await send('shared-key', { phone }, other.key)).body, theirs.body);
    assert.equal((await send('shared-key', { phone })).body, mine.body);
  });

  test('a key lasts 24 hours: replayed until then, a new send afterwards (another body too), and retention prunes it', async () => {
    const phone = freshPhone();
    const first = await send('day-1', { phone });
    assert.equal(first.statusCode, 201);
    assert.equal((await send('day-2', { phone: freshPhone() })).statusCode, 201);

    clock.advance(IDEMPOTENCY_KEY_TTL_MS - 1);
    const late = await send('day-1', { phone });
    assert.equal(late.headers['idempotent-replayed'], 'true');
    assert.equal(late.body, first.body);

    clock.advance(1);
    const fresh = await send('day-1', { phone });
    assert.equal(fresh.statusCode, 201, fresh.body);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.notEqual(json<Verification>(fresh).id, json<Verification>(first).id);
    assert.equal(
      (await send('day-2', { phone: freshPhone() })).statusCode,
      201,
      'another body is no reuse now',
    );

    // Keys past their 24 hours go at the next pruning; the two just taken again stay.
    clock.advance(1);
    await send('day-3', { phone: freshPhone() });
    clock.advance(IDEMPOTENCY_KEY_TTL_MS);
    const pruned = await t.services.retention.prune();
    assert.ok(pruned.idempotencyKeys >= 3, `pruned ${pruned.idempotencyKeys}`);
    assert.equal(await keyRow('day-1'), undefined);
    assert.equal(await keyRow('day-3'), undefined);
  });

  test('a 429 is not kept: the key is released, the retry runs the send again and succeeds once the limit allows', async () => {
    const phone = freshPhone();
    for (let i = 0; i < 5; i++) assert.equal((await send(undefined, { phone })).statusCode, 201);
    for (let i = 0; i < 2; i++) {
      const limited = await send('limited-1', { phone });
      assertProblem(limited, 429, 'rate_limited');
      assert.equal(limited.headers['idempotent-replayed'], undefined, 'a 429 is never a replay');
      assert.equal(await keyRow('limited-1'), undefined, 'the key was released');
    }
    clock.advance(10 * 60_000);
    const sent = await send('limited-1', { phone });
    assert.equal(sent.statusCode, 201, sent.body);
    assert.equal(sent.headers['idempotent-replayed'], undefined);
    assert.equal((await send('limited-1', { phone })).headers['idempotent-replayed'], 'true');
  });

  test('final refusals are kept and replayed as they were: 400 invalid_phone, 409 channel_unavailable', async () => {
    const bad = await send('final-400', { phone: '+6141234' });
    const problem = assertProblem(bad, 400, 'invalid_phone');
    const replay = await send('final-400', { phone: '+6141234' });
    assert.equal(replay.statusCode, 400);
    assert.equal(replay.body, bad.body, 'the first body, its request_id included');
    assert.equal(json<Problem>(replay).request_id, problem.request_id);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.headers['content-type'], bad.headers['content-type']);

    // A workspace with only a landline cannot send SMS; the answer stands for the key even once it could.
    const landline = await seedWorkspace(t.services, {
      name: 'Landline Co',
      numbers: [{ number: '+61290000001', type: 'landline' }],
    });
    const body = { phone: freshPhone(), channel: 'sms' };
    const refused = await send('final-409', body, landline.key);
    assertProblem(refused, 409, 'channel_unavailable');
    await t.services.workspaces.addNumber(
      { workspaceId: landline.workspaceId, number: '+61491570157' },
      OPERATOR,
    );
    const stands = await send('final-409', body, landline.key);
    assert.equal(stands.statusCode, 409);
    assert.equal(stands.body, refused.body);
    assert.equal(stands.headers['idempotent-replayed'], 'true');
    assert.equal(
      (await send('final-409-new', body, landline.key)).statusCode,
      201,
      'a new key runs the send',
    );
  });

  test('a body refused by validation does not take the key', async () => {
    const phone = freshPhone();
    assertProblem(
      await send('invalid-first', { phone, code_length: 99 }),
      400,
      'invalid_request',
      'code_length',
    );
    assert.equal(await keyRow('invalid-first'), undefined);
    const sent = await send('invalid-first', { phone });
    assert.equal(sent.statusCode, 201, 'another body under the key is no reuse: nothing was kept');
    assert.equal(sent.headers['idempotent-replayed'], undefined);
  });

  test('a key left in flight by a process that died: 409 until its lease ends, then a retry takes it over', async () => {
    const phone = freshPhone();
    const first = await send('orphan-1', { phone });
    assert.equal(first.statusCode, 201);
    // As a process that died after taking the key, before storing its answer, leaves it.
    await t.store.db
      .updateTable('idempotency_keys')
      .set({
        state: 'in_flight',
        response_status: null,
        response_body: null,
        lease_until: clock.now() + IDEMPOTENCY_LEASE_MS,
      })
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', 'orphan-1')
      .execute();
    const busy = await send('orphan-1', { phone });
    assertProblem(busy, 409, 'idempotency_key_in_use');
    assert.equal(busy.headers['retry-after'], '1');

    clock.advance(IDEMPOTENCY_LEASE_MS - 1);
    assertProblem(await send('orphan-1', { phone }), 409, 'idempotency_key_in_use');
    clock.advance(1);
    const retried = await send('orphan-1', { phone });
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    assert.notEqual(json<Verification>(retried).id, json<Verification>(first).id);
    assert.equal((await send('orphan-1', { phone })).body, retried.body);
  });

  test('a holder whose lease ran out stores nothing over the request that took the key over', async () => {
    const idempotency = t.services.idempotency;
    const a = await idempotency.begin(workspaceId, 'stale-1', 'hash');
    assert.ok('claim' in a);
    clock.advance(IDEMPOTENCY_LEASE_MS);
    const b = await idempotency.begin(workspaceId, 'stale-1', 'hash');
    assert.ok('claim' in b);
    await idempotency.finish(a.claim, 201, '"late"');
    await assert.rejects(idempotency.begin(workspaceId, 'stale-1', 'hash'), {
      code: 'idempotency_key_in_use',
    });
    await idempotency.finish(b.claim, 201, '"current"');
    await idempotency.finish(a.claim, 500, undefined);
    assert.deepEqual(await idempotency.begin(workspaceId, 'stale-1', 'hash'), {
      replay: { status: 201, body: '"current"' },
    });
  });

  test('a request without the header is unchanged: each send sends, nothing is kept', async () => {
    const phone = freshPhone();
    const before = await t.store.db.selectFrom('idempotency_keys').select('key').execute();
    const first = await send(undefined, { phone });
    const second = await send(undefined, { phone });
    for (const r of [first, second]) {
      assert.equal(r.statusCode, 201);
      assert.equal(r.headers['idempotent-replayed'], undefined);
    }
    const statuses = (await verificationsTo(phone)).map((v) => v.status).sort();
    assert.deepEqual(statuses, ['canceled', 'pending']);
    assert.equal((await messagesTo(phone)).length, 2);
    assert.deepEqual(await t.store.db.selectFrom('idempotency_keys').select('key').execute(), before);
  });

  test('the header is read only after the key: a refused key touches nothing', async () => {
    const res = await send('unauthenticated', { phone: freshPhone() }, 'pv_live_not-a-key');
    assert.equal(res.statusCode, 401);
    assert.equal(
      await t.store.db
        .selectFrom('idempotency_keys')
        .select('key')
        .where('key', '=', 'unauthenticated')
        .executeTakeFirst(),
      undefined,
    );
    // And the client helper (no header) is the plain send.
    assert.equal((await client(t.app, key).send({ phone: freshPhone() })).statusCode, 201);
  });
});
