// api-decisions "Limits": requests per workspace, a generous default (request_limit_per_minute, 6000), with 429
// beyond it; counted in the database, so the limit holds across every process sharing it.
// api-decisions "Errors": 429 rate_limited with a Retry-After header, `retry_after` and a `detail` naming the limit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import {
  type Client,
  client,
  codeFor,
  createTestApp,
  json,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { clockedApp } from '../helpers/verification.js';

const MINUTE = 60_000;
// The fake clock's start, 09:30:00.000, is the first instant of a minute.
const MINUTE_START = Date.parse('2026-11-21T09:30:00.000Z');

function assertRateLimited(res: LightMyRequestResponse, expectedRetryAfter?: number) {
  assert.equal(res.statusCode, 429);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = json(res);
  assert.equal(body.code, 'rate_limited');
  const header = String(res.headers['retry-after']);
  assert.match(header, /^\d+$/, 'Retry-After header in whole seconds');
  assert.equal(body.retry_after, Number(header), 'retry_after repeats Retry-After');
  assert.ok(Number(header) > 0 && Number(header) <= 60, `retry_after ${header} within (0, 60]`);
  if (expectedRetryAfter !== undefined) assert.equal(Number(header), expectedRetryAfter);
  assert.match(String(body.detail), /\b3\b/, 'detail names the limit');
  assert.match(String(body.detail), /minute/);
  return body;
}

async function setRequestLimit(t: TestApp, workspaceId: string, limit: number) {
  await t.store.db
    .updateTable('workspaces')
    .set({ request_limit_per_minute: limit })
    .where('id', '=', workspaceId)
    .execute();
}

/** Two clients under one limit of 3, taking turns: three requests pass, the fourth is refused. */
async function assertSharedLimit(a: Client, b: Client) {
  assert.equal((await a.ping()).statusCode, 200);
  assert.equal((await b.ping()).statusCode, 200);
  assert.equal((await a.ping()).statusCode, 200);
  assertRateLimited(await b.ping());
}

describe('request limit per workspace per minute', () => {
  let t: TestApp;
  let clock: FakeClock;

  before(async () => {
    ({ t, clock } = await clockedApp());
  });
  after(() => t.close());
  // Each test starts at the first instant of its own fresh minute.
  let minute = 0;
  beforeEach(() => {
    minute += 2;
    clock.set(MINUTE_START + minute * MINUTE);
  });

  test('the default limit is generous: request_limit_per_minute is 6000 for a new workspace', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Default' });
    const row = await t.store.db
      .selectFrom('workspaces')
      .select('request_limit_per_minute')
      .where('id', '=', ws.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(row.request_limit_per_minute, 6000);
    const api = client(t.app, ws.key);
    for (let i = 0; i < 20; i++) assert.equal((await api.ping()).statusCode, 200);
  });

  test('beyond the workspace limit a request answers 429 rate_limited with Retry-After until the minute ends', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Limited' });
    await setRequestLimit(t, ws.workspaceId, 3);
    const api = client(t.app, ws.key);
    for (let i = 0; i < 3; i++) assert.equal((await api.ping()).statusCode, 200, `request ${i + 1} of 3`);
    // At the first instant of the minute, the whole minute remains.
    assertRateLimited(await api.ping(), 60);
    clock.advance(45_500);
    assertRateLimited(await api.ping(), 15);
  });

  test('every counted answer carries RateLimit-Policy and RateLimit (IETF draft): the quota, what is left, when it resets', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Headers' });
    await setRequestLimit(t, ws.workspaceId, 3);
    const api = client(t.app, ws.key);
    clock.advance(20_000); // 40 s of the minute left
    const phone = '+61412350004';
    const sent = await api.send({ phone });
    const id = String(json(sent).id);
    const answers = [sent, await api.get(id), await api.ping(), await api.cancel(id), await api.ping()];
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [201, 200, 200, 429, 429],
    );
    for (const [i, res] of answers.entries()) {
      assert.equal(res.headers['ratelimit-policy'], '"workspace";q=3;w=60', `answer ${i + 1}`);
      const remaining = Math.max(0, 3 - (i + 1));
      assert.equal(res.headers.ratelimit, `"workspace";r=${remaining};t=40`, `answer ${i + 1}`);
    }
    // On a refusal, t repeats Retry-After.
    assert.equal(answers[4]?.headers['retry-after'], '40');
    // A changed limit shows in the very next answer.
    await setRequestLimit(t, ws.workspaceId, 100);
    const after = await api.ping();
    assert.equal(after.headers['ratelimit-policy'], '"workspace";q=100;w=60');
    assert.equal(after.headers.ratelimit, '"workspace";r=94;t=40');
  });

  test('answers to requests that were not counted carry no RateLimit fields (no key, an unknown or revoked key)', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Uncounted' });
    const revoked = await t.services.keys.createKey({ workspaceId: ws.workspaceId, name: 'gone' }, OPERATOR);
    await t.services.keys.revokeKey(ws.workspaceId, revoked.id, OPERATOR);
    const answers = [
      await t.app.inject({ method: 'GET', url: '/v1/ping' }),
      await client(t.app, `pv_live_${'x'.repeat(42)}`).ping(),
      await client(t.app, revoked.key).ping(),
    ];
    for (const res of answers) {
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers.ratelimit, undefined);
      assert.equal(res.headers['ratelimit-policy'], undefined);
    }
  });

  test('every /v1 endpoint counts toward and is refused by the limit', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Mixed' });
    await setRequestLimit(t, ws.workspaceId, 3);
    const api = client(t.app, ws.key);
    const phone = '+61412350001';
    const sent = await api.send({ phone });
    assert.equal(sent.statusCode, 201);
    const id = String(json(sent).id);
    assert.equal((await api.get(id)).statusCode, 200);
    assert.equal((await api.check({ verification_id: id, code: '000000' })).statusCode, 200);
    assertRateLimited(await api.send({ phone: '+61412350002' }));
    assertRateLimited(await api.check({ verification_id: id, code: await codeFor(t.services, phone) }));
    assertRateLimited(await api.get(id));
    assertRateLimited(await api.cancel(id));
    assertRateLimited(await api.ping());
  });

  test('requests refused for their key (revoked, expired, unknown) or its scope are not counted', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Refusals' });
    await setRequestLimit(t, ws.workspaceId, 3);
    const revoked = await t.services.keys.createKey(
      { workspaceId: ws.workspaceId, name: 'revoked' },
      OPERATOR,
    );
    await t.services.keys.revokeKey(ws.workspaceId, revoked.id, OPERATOR);
    const expiring = await t.services.keys.createKey(
      {
        workspaceId: ws.workspaceId,
        name: 'expiring',
        expiresInSeconds: 1,
      },
      OPERATOR,
    );
    const noScope = await t.services.keys.createKey(
      {
        workspaceId: ws.workspaceId,
        name: 'no scope',
        scopes: [],
      },
      OPERATOR,
    );
    clock.advance(1_000);
    for (let i = 0; i < 5; i++) {
      assert.equal((await client(t.app, revoked.key).ping()).statusCode, 401);
      assert.equal((await client(t.app, expiring.key).ping()).statusCode, 401);
      assert.equal((await client(t.app, noScope.key).send({ phone: '+61412350099' })).statusCode, 403);
    }
    // The three requests the limit allows are all still there: none of the fifteen refusals was counted.
    const api = client(t.app, ws.key);
    for (let i = 0; i < 3; i++) assert.equal((await api.ping()).statusCode, 200, `request ${i + 1} of 3`);
    assertRateLimited(await api.ping());
  });

  test('a refused request changes nothing: no send happens and no attempt is spent', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Refused' });
    const api = client(t.app, ws.key);
    const phone = '+61412350003';
    const id = String(json(await api.send({ phone })).id);
    const code = await codeFor(t.services, phone);
    await setRequestLimit(t, ws.workspaceId, 1);
    clock.advance(MINUTE); // a fresh minute: one request allowed
    assert.equal((await api.ping()).statusCode, 200);
    assert.equal((await api.send({ phone })).statusCode, 429);
    assert.equal((await api.check({ verification_id: id, code })).statusCode, 429);
    const rows = await t.store.db
      .selectFrom('verifications')
      .select(['id', 'status', 'attempts'])
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    assert.deepEqual(rows, [{ id, status: 'pending', attempts: 0 }]);
  });

  test('other workspaces are unaffected when one workspace is over its limit', async () => {
    const limited = await seedWorkspace(t.services, { name: 'Busy' });
    const quiet = await seedWorkspace(t.services, { name: 'Quiet' });
    await setRequestLimit(t, limited.workspaceId, 3);
    await setRequestLimit(t, quiet.workspaceId, 3);
    const busy = client(t.app, limited.key);
    for (let i = 0; i < 3; i++) assert.equal((await busy.ping()).statusCode, 200);
    assertRateLimited(await busy.ping());
    const calm = client(t.app, quiet.key);
    for (let i = 0; i < 3; i++) assert.equal((await calm.ping()).statusCode, 200, `other workspace ${i + 1}`);
  });

  test('all keys of a workspace share its limit', async () => {
    const ws = await seedWorkspace(t.services, { name: 'TwoKeys' });
    const second = await t.services.keys.createKey(
      { workspaceId: ws.workspaceId, name: 'second key' },
      OPERATOR,
    );
    await setRequestLimit(t, ws.workspaceId, 3);
    const a = client(t.app, ws.key);
    const b = client(t.app, second.key);
    await assertSharedLimit(a, b);
  });

  test('the limit resets in the next minute', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Reset' });
    await setRequestLimit(t, ws.workspaceId, 3);
    const api = client(t.app, ws.key);
    for (let i = 0; i < 3; i++) assert.equal((await api.ping()).statusCode, 200);
    clock.advance(59_999);
    assertRateLimited(await api.ping(), 1);
    clock.advance(1); // the first instant of the next minute
    for (let i = 0; i < 3; i++) assert.equal((await api.ping()).statusCode, 200, `next minute ${i + 1}`);
    assertRateLimited(await api.ping(), 60);
  });

  test('a changed limit takes effect on the next request (read from the database, not cached)', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Changed' });
    const api = client(t.app, ws.key);
    for (let i = 0; i < 3; i++) assert.equal((await api.ping()).statusCode, 200);
    await setRequestLimit(t, ws.workspaceId, 3);
    assertRateLimited(await api.ping());
    await setRequestLimit(t, ws.workspaceId, 100);
    assert.equal((await api.ping()).statusCode, 200);
  });
});

describe('request limit: counted in the database, shared by every process on it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-request-limit-'));
  let first: TestApp;
  let second: TestApp;

  before(async () => {
    const clock = fakeClock();
    first = await createTestApp({ dir, clock });
    second = await createTestApp({ dir, clock });
  });
  after(async () => {
    await first.close();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('two apps on one SQLite file share one workspace’s count', async () => {
    const ws = await seedWorkspace(first.services, { name: 'Shared' });
    await setRequestLimit(first, ws.workspaceId, 3);
    const a = client(first.app, ws.key);
    const b = client(second.app, ws.key);
    await assertSharedLimit(a, b);
    assertRateLimited(await a.ping());
  });
});
