// The request limit when requests arrive together. Their admissions are made together (keys/admission-batch.ts:
// on PostgreSQL one statement for the lot, on SQLite each distinct key looked up once and each window counted
// once): each admitted request must still take its own count, in one window per workspace, so a burst passes
// exactly the limit; refused keys in the same batch are not counted; and keys of several workspaces in one batch
// count only towards their own. The counter row ends with one count per request whose key was admitted.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { client, seedWorkspace, statementsOf, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertEveryStatus, clockedApp } from '../helpers/verification.js';

const MINUTE = 60_000;
const MINUTE_START = Date.parse('2026-11-21T09:30:00.000Z');

async function setRequestLimit(t: TestApp, workspaceId: string, limit: number) {
  await t.services.workspaces.setLimits(
    {
      workspaceId,
      limits: { send_limit: 5, send_window_seconds: 600, request_limit_per_minute: limit },
    },
    OPERATOR,
  );
}

async function counted(t: TestApp, workspaceId: string): Promise<number> {
  const rows = await t.store.db
    .selectFrom('request_counters')
    .select('count')
    .where('workspace_id', '=', workspaceId)
    .where('window_start', '=', MINUTE_START + minute * MINUTE)
    .execute();
  return rows.reduce((sum, r) => sum + Number(r.count), 0);
}

let minute = 0;

describe('request limit under a burst of concurrent requests', () => {
  let t: TestApp;
  let clock: FakeClock;

  before(async () => {
    ({ t, clock } = await clockedApp());
  });
  after(() => t.close());
  beforeEach(() => {
    minute += 2;
    clock.set(MINUTE_START + minute * MINUTE);
  });

  test('120 concurrent pings on a limit of 50: exactly 50 answer 200, 70 answer 429, and all 120 are counted', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Burst' });
    await setRequestLimit(t, ws.workspaceId, 50);
    const api = client(t.app, ws.key);
    const replies = await Promise.all(Array.from({ length: 120 }, () => api.ping()));
    const statuses = replies.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 50, `statuses: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 429).length, 70, `statuses: ${statuses}`);
    assert.equal(await counted(t, ws.workspaceId), 120);
  });

  test("a burst's admissions share their statements: 120 concurrent pings are a few statements, not two each", async () => {
    const ws = await seedWorkspace(t.services, { name: 'Shared statements' });
    await setRequestLimit(t, ws.workspaceId, 1000);
    const api = client(t.app, ws.key);
    // The key's first use records last_used_at (a write of its own, once in a while); the burst comes after it.
    assert.equal((await api.ping()).statusCode, 200);
    const statements = await statementsOf(t, async () => {
      const replies = await Promise.all(Array.from({ length: 120 }, () => api.ping()));
      assertEveryStatus(replies, 200);
    });
    assert.ok(statements > 0, 'the admissions ran statements');
    // One look-up and one count a request would be 240.
    assert.ok(statements <= 12, `statements for 120 pings: ${statements}`);
    assert.equal(await counted(t, ws.workspaceId), 121);
  });

  test('one burst over two workspaces and refused keys: each workspace passes its own limit, refusals count nowhere', async () => {
    const a = await seedWorkspace(t.services, { name: 'A' });
    const b = await seedWorkspace(t.services, { name: 'B' });
    await setRequestLimit(t, a.workspaceId, 20);
    await setRequestLimit(t, b.workspaceId, 30);
    const revoked = await t.services.keys.createKey(
      { workspaceId: a.workspaceId, name: 'revoked' },
      OPERATOR,
    );
    await t.services.keys.revokeKey(a.workspaceId, revoked.id, OPERATOR);
    const noScope = await t.services.keys.createKey(
      { workspaceId: b.workspaceId, name: 'none', scopes: [] },
      OPERATOR,
    );
    const unknown = `pv_live_${'x'.repeat(42)}`;

    const apiA = client(t.app, a.key);
    const apiB = client(t.app, b.key);
    const calls = Array.from({ length: 40 }, (_, i) => {
      switch (i % 5) {
        case 0:
          return client(t.app, revoked.key).ping();
        case 1:
          return client(t.app, unknown).ping();
        case 2:
          // A key without the otp scope is refused by the send route and not counted.
          return client(t.app, noScope.key).send({ phone: '+61412350099' });
        default:
          return Promise.all([apiA.ping(), apiB.ping()]).then(([ra, rb]) => ({ ra, rb }));
      }
    });
    // A further wave of each workspace's own pings, in the same turn as the mixed ones.
    const more = [
      ...Array.from({ length: 20 }, () => apiA.ping()),
      ...Array.from({ length: 20 }, () => apiB.ping()),
    ];
    const [mixed, extra] = await Promise.all([Promise.all(calls), Promise.all(more)]);

    const ofA: number[] = [];
    const ofB: number[] = [];
    const refused: number[] = [];
    for (const reply of mixed) {
      if ('ra' in reply) {
        ofA.push(reply.ra.statusCode);
        ofB.push(reply.rb.statusCode);
      } else {
        refused.push(reply.statusCode);
      }
    }
    ofA.push(...extra.slice(0, 20).map((r) => r.statusCode));
    ofB.push(...extra.slice(20).map((r) => r.statusCode));

    assert.deepEqual(
      [...new Set(refused)].sort(),
      [401, 403],
      `the revoked and unknown keys answer 401, the scope-less key 403: ${refused}`,
    );
    // 16 + 20 = 36 requests for A on a limit of 20; 36 for B on a limit of 30.
    assert.equal(ofA.length, 36);
    assert.equal(ofB.length, 36);
    assert.equal(ofA.filter((s) => s === 200).length, 20, `A: ${ofA}`);
    assert.equal(ofA.filter((s) => s === 429).length, 16, `A: ${ofA}`);
    assert.equal(ofB.filter((s) => s === 200).length, 30, `B: ${ofB}`);
    assert.equal(ofB.filter((s) => s === 429).length, 6, `B: ${ofB}`);
    assert.equal(await counted(t, a.workspaceId), 36, 'the revoked key was not counted in A');
    assert.equal(await counted(t, b.workspaceId), 36, 'the scope-less key was not counted in B');
  });
});
