// api-decisions "Limits": sends to one number, 5 per 10 minutes per workspace, then 429; held in the database,
// so it holds across every server process sharing it. api-decisions "Errors": 429 rate_limited with a
// Retry-After header, `retry_after` in seconds and a `detail` naming the limit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { listOutbox } from '../../src/delivery/outbox.js';
import { client, codeFor, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

const MINUTE = 60_000;

function assertRateLimited(res: LightMyRequestResponse, expectedRetryAfter?: number) {
  assert.equal(res.statusCode, 429);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = json(res);
  assert.equal(body.code, 'rate_limited');
  assert.equal(body.status, 429);
  const header = res.headers['retry-after'];
  assert.ok(header !== undefined, 'Retry-After header is present');
  assert.match(String(header), /^\d+$/, 'Retry-After is whole seconds');
  const seconds = Number(header);
  assert.ok(Number.isInteger(body.retry_after), 'retry_after is an integer');
  assert.equal(body.retry_after, seconds, 'retry_after repeats the Retry-After header');
  assert.ok(seconds > 0 && seconds <= 600, `retry_after ${seconds} is within (0, 600]`);
  if (expectedRetryAfter !== undefined) assert.equal(seconds, expectedRetryAfter);
  // The detail names the limit: 5 sends in 10 minutes.
  assert.match(String(body.detail), /\b5\b/);
  assert.match(String(body.detail), /10 minutes/);
  return body;
}

describe('send limit: 5 sends per number per 10 minutes per workspace', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  let other: ReturnType<typeof client>;
  let workspaceId: string;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    other = client(t.app, (await seedWorkspace(t.services, { name: 'Other' })).key);
  });
  after(() => t.close());

  const countRows = async (phone: string, ws = workspaceId) =>
    (
      await t.store.db
        .selectFrom('verifications')
        .select('id')
        .where('workspace_id', '=', ws)
        .where('phone', '=', phone)
        .execute()
    ).length;

  test('the 6th send to a number within 10 minutes answers 429 rate_limited with Retry-After and retry_after', async () => {
    const phone = '+61412340001';
    for (let i = 0; i < 5; i++) {
      const res = await api.send({ phone });
      assert.equal(res.statusCode, 201, `send ${i + 1} of 5 succeeds`);
      clock.advance(1000);
    }
    const res = await api.send({ phone });
    // The five sends were 1 s apart; the oldest was 5 s ago, so a place frees in 595 s.
    assertRateLimited(res, 595);
    assert.equal(typeof json(res).request_id, 'string');
  });

  test('another number in the same workspace is unaffected by one number reaching the limit', async () => {
    const phone = '+61412340002';
    for (let i = 0; i < 5; i++) assert.equal((await api.send({ phone })).statusCode, 201);
    assertRateLimited(await api.send({ phone }));
    assert.equal((await api.send({ phone: '+61412340003' })).statusCode, 201);
  });

  test('the same number in another workspace is unaffected (the limit is per workspace)', async () => {
    const phone = '+61412340004';
    for (let i = 0; i < 5; i++) assert.equal((await api.send({ phone })).statusCode, 201);
    assertRateLimited(await api.send({ phone }));
    const res = await other.send({ phone });
    assert.equal(res.statusCode, 201);
    assert.equal(json(res).status, 'pending');
  });

  test('the window slides: Retry-After is when the oldest send ages out, and a place frees exactly then', async () => {
    const phone = '+61412340005';
    const start = clock.now();
    // Sends at 0, 1, 2, 3 and 4 minutes.
    for (let i = 0; i < 5; i++) {
      clock.set(start + i * MINUTE);
      assert.equal((await api.send({ phone })).statusCode, 201);
    }
    clock.set(start + 5 * MINUTE);
    assertRateLimited(await api.send({ phone }), 300);
    // One millisecond before the oldest send is 10 minutes old: still limited, one second to wait.
    clock.set(start + 10 * MINUTE - 1);
    assertRateLimited(await api.send({ phone }), 1);
    // At 10 minutes the send at 0 has aged out: one place.
    clock.set(start + 10 * MINUTE);
    assert.equal((await api.send({ phone })).statusCode, 201);
    // The next place frees when the send at 1 minute ages out, 60 s from now.
    assertRateLimited(await api.send({ phone }), 60);
    clock.set(start + 11 * MINUTE);
    assert.equal((await api.send({ phone })).statusCode, 201);
  });

  test('after a whole quiet window the number has its full 5 sends again', async () => {
    const phone = '+61412340006';
    for (let i = 0; i < 5; i++) assert.equal((await api.send({ phone })).statusCode, 201);
    assertRateLimited(await api.send({ phone }));
    clock.advance(10 * MINUTE);
    for (let i = 0; i < 5; i++) assert.equal((await api.send({ phone })).statusCode, 201, `send ${i + 1}`);
    assertRateLimited(await api.send({ phone }));
  });

  test('undelivered sends count toward the limit', async () => {
    const phone = '+61412340999'; // the development provider rejects the hand-over for …0999
    for (let i = 0; i < 5; i++) {
      const res = await api.send({ phone });
      assert.equal(res.statusCode, 201);
      assert.equal(json(res).status, 'undelivered');
    }
    assertRateLimited(await api.send({ phone }));
    assert.equal(await countRows(phone), 5);
  });

  test('sends on either channel count toward one limit for the number', async () => {
    const phone = '+61412340007';
    for (const channel of ['voice', 'sms', 'voice', 'sms', 'sms']) {
      assert.equal((await api.send({ phone, channel })).statusCode, 201);
    }
    assertRateLimited(await api.send({ phone, channel: 'voice' }));
  });

  test('national and E.164 forms of one number share the limit', async () => {
    for (let i = 0; i < 5; i++) {
      const phone = i % 2 === 0 ? '+61412340008' : '0412 340 008';
      assert.equal((await api.send({ phone })).statusCode, 201);
    }
    assertRateLimited(await api.send({ phone: '0412340008', country: 'AU' }));
  });

  test('a 429 changes nothing: the pending verification stays pending and checkable, nothing is sent', async () => {
    const phone = '+61412340009';
    let lastId = '';
    for (let i = 0; i < 5; i++) {
      clock.advance(1); // distinct timestamps, so the outbox's newest message is the last send's
      const res = await api.send({ phone });
      assert.equal(res.statusCode, 201);
      lastId = String(json(res).id);
    }
    const code = await codeFor(t.services, phone);
    const outboxBefore = await listOutbox(t.store.db, { to: phone, limit: 100 });

    assertRateLimited(await api.send({ phone }));

    assert.equal(await countRows(phone), 5, 'no verification is created');
    assert.deepEqual(await listOutbox(t.store.db, { to: phone, limit: 100 }), outboxBefore);
    const read = json(await api.get(lastId));
    assert.equal(read.status, 'pending', 'the pending verification is not superseded');
    assert.equal(read.attempts, 0);
    const checked = json(await api.check({ verification_id: lastId, code }));
    assert.equal(checked.verified, true, 'its code still works');
  });

  test('the workspace carries the limit: 5 sends in a 600 s window by default', async () => {
    const ws = await t.store.db
      .selectFrom('workspaces')
      .select(['send_limit', 'send_window_seconds'])
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(ws, { send_limit: 5, send_window_seconds: 600 });
  });
});

describe('send limit: stored in the database, shared by every process on it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-send-limit-'));
  let first: TestApp;
  let second: TestApp;
  let key: string;

  before(async () => {
    first = await createTestApp({ dir });
    key = (await seedWorkspace(first.services, { name: 'Acme' })).key;
    second = await createTestApp({ dir });
  });
  after(async () => {
    await first.close();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a second app on the same SQLite file sees the first one’s sends and refuses the 6th', async () => {
    const phone = '+61412340010';
    const a = client(first.app, key);
    const b = client(second.app, key);
    for (let i = 0; i < 3; i++) assert.equal((await a.send({ phone })).statusCode, 201);
    for (let i = 0; i < 2; i++) assert.equal((await b.send({ phone })).statusCode, 201);
    assertRateLimited(await b.send({ phone }));
    assertRateLimited(await a.send({ phone }));
  });

  test('a second app built later on the same file still sees the earlier sends', async () => {
    const phone = '+61412340011';
    const a = client(first.app, key);
    for (let i = 0; i < 5; i++) assert.equal((await a.send({ phone })).statusCode, 201);
    const third = await createTestApp({ dir });
    try {
      assertRateLimited(await client(third.app, key).send({ phone }));
    } finally {
      await third.close();
    }
  });
});
