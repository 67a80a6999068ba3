// The overview's counts of the hours not rolled up yet (src/stats/counts.ts), kept by triggers as verifications
// change (migration 0017): after every way a status changes, through the API and the sweeper, the overview from
// the counts equals the one from the raw rows; an update that moves a send to another key moves its count; one
// that changes nothing counted leaves the counts alone; concurrent sends and checks count exactly, both stores.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { loadOverview } from '../../src/stats/overview.js';
import { periodEndingAt } from '../../src/stats/period.js';
import { client, codeFor, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { wrongCode } from '../helpers/verification.js';

const NOW = Date.parse('2026-11-21T09:30:00.000Z');
const MIN = 60_000;

describe('stats: counts kept as verifications change', () => {
  let t: TestApp;
  let clock: FakeClock;
  afterEach(() => t.close());

  async function setUp() {
    clock = fakeClock(NOW);
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    return { workspaceId: ws.workspaceId, api: client(t.app, ws.key) };
  }

  /** The day and the week from the counts equal them from the raw rows alone. */
  async function assertCountsExact(workspaceId: string, label: string) {
    for (const name of ['day', 'week'] as const) {
      const period = periodEndingAt(name, clock.now());
      const counted = await loadOverview(t.store.db, workspaceId, period);
      const raw = await loadOverview(t.store.db, workspaceId, period, 0);
      assert.deepEqual(counted, raw, `${label}: ${name}`);
    }
  }

  const countRows = () =>
    t.store.db
      .selectFrom('verification_counts')
      .selectAll()
      .orderBy(['hour', 'channel', 'seconds'])
      .execute();

  test('every change of status is counted: send, verify, fail, cancel, supersede, reject, late failure, expiry', async () => {
    const { workspaceId, api } = await setUp();
    const send = async (phone: string, channel: 'sms' | 'voice' = 'sms') => {
      const res = await api.send({ phone, channel });
      assert.equal(res.statusCode, 201, res.body);
      return json<{ id: string; status: string }>(res);
    };
    const verified = await send('+61412345601');
    clock.advance(37_000);
    const ok = await api.check({
      verification_id: verified.id,
      code: await codeFor(t.services, '+61412345601'),
    });
    assert.equal(json<{ status: string }>(ok).status, 'verified');
    await assertCountsExact(workspaceId, 'verified');

    const failing = await send('+61412345602', 'voice');
    const code = await codeFor(t.services, '+61412345602');
    for (let i = 0; i < 5; i++) await api.check({ verification_id: failing.id, code: wrongCode(code) });
    await assertCountsExact(workspaceId, 'failed by its last wrong attempt');

    const canceled = await send('+61412345603');
    assert.equal((await api.cancel(canceled.id)).statusCode, 200);
    await assertCountsExact(workspaceId, 'canceled');

    await send('+61412345604');
    clock.advance(MIN);
    await send('+61412345604'); // supersedes the first
    await assertCountsExact(workspaceId, 'superseded');

    const rejected = await send('+61412340999'); // the development provider rejects the hand-over
    assert.equal(rejected.status, 'undelivered');
    await send('+61412340998'); // handed over, then reported failed
    clock.advance(3_000);
    await t.services.devProvider.applyDueReports();
    await assertCountsExact(workspaceId, 'undelivered at once and later');

    await send('+64211234570', 'voice');
    clock.advance(15 * MIN);
    assert.ok((await t.services.verifications.expireDue()) > 0, 'codes expired');
    await assertCountsExact(workspaceId, 'expired');

    // Into the next hour: a new key, the old hour still counted.
    clock.advance(40 * MIN);
    const later = await send('+61412345605');
    clock.advance(3 * MIN + 1234);
    await api.check({ verification_id: later.id, code: await codeFor(t.services, '+61412345605') });
    await assertCountsExact(workspaceId, 'the next hour');
    const totals = (await loadOverview(t.store.db, workspaceId, periodEndingAt('day', clock.now()))).totals;
    assert.deepEqual(
      { ...totals, conversion: null },
      {
        sends: 9,
        verified: 2,
        undelivered: 2,
        pending: 0,
        canceled: 2,
        expired: 2,
        failed: 1,
        conversion: null,
        medianSecondsToVerify: 37,
      },
    );
  });

  test('an update that moves a send to another key moves its count; one that changes nothing counted leaves them', async () => {
    const { workspaceId, api } = await setUp();
    const sent = json<{ id: string }>(await api.send({ phone: '+61412345601', channel: 'sms' }));
    const before = await countRows();
    await t.store.db
      .updateTable('verifications')
      .set({ attempts: 1, updated_at: NOW + 1 })
      .where('id', '=', sent.id)
      .execute();
    assert.deepEqual(await countRows(), before, 'attempts are not counted');
    await t.store.db
      .updateTable('verifications')
      .set({ channel: 'voice', country: null })
      .where('id', '=', sent.id)
      .execute();
    await assertCountsExact(workspaceId, 'moved to voice, country unknown');
    const stats = await loadOverview(t.store.db, workspaceId, periodEndingAt('day', clock.now()));
    assert.deepEqual(
      stats.channels.map((c) => [c.channel, c.sends]),
      [['voice', 1]],
    );
  });

  test('the hours not rolled up come from the counts, not from a pass over the rows', async () => {
    const { workspaceId, api } = await setUp();
    const sent = json<{ id: string }>(await api.send({ phone: '+61412345601', channel: 'sms' }));
    // Deleting a row writes no count: the overview still counts its send, the raw rows do not.
    await t.store.db.deleteFrom('verification_events').where('verification_id', '=', sent.id).execute();
    await t.store.db.deleteFrom('outbox_messages').where('verification_id', '=', sent.id).execute();
    await t.store.db.deleteFrom('verifications').where('id', '=', sent.id).execute();
    const period = periodEndingAt('day', clock.now());
    assert.equal((await loadOverview(t.store.db, workspaceId, period)).totals.sends, 1);
    assert.equal((await loadOverview(t.store.db, workspaceId, period, 0)).totals.sends, 0);
  });

  test('test data is not counted (the overview reads it from its rows)', async () => {
    const { workspaceId, api } = await setUp();
    await api.send({ phone: '+61412345601', channel: 'sms' });
    const live = await countRows();
    await t.store.db.updateTable('verifications').set({ mode: 'test' }).execute();
    const left = await countRows();
    assert.equal(
      live.reduce((n, r) => n + Number(r.sends), 0),
      1,
    );
    assert.equal(
      left.reduce((n, r) => n + Number(r.sends), 0),
      0,
      'a send turned test is taken away',
    );
    await assertCountsExact(workspaceId, 'test data');
  });

  test('concurrent sends and checks are counted exactly', async () => {
    const { workspaceId, api } = await setUp();
    const phones = Array.from({ length: 40 }, (_, i) => `+614123457${String(i).padStart(2, '0')}`);
    const sent = await Promise.all(
      phones.map(async (phone) => json<{ id: string }>(await api.send({ phone, channel: 'sms' })).id),
    );
    clock.advance(12_000);
    const codes = await Promise.all(phones.map((phone) => codeFor(t.services, phone)));
    const answers = await Promise.all([
      ...sent.map((id, i) =>
        api.check({ verification_id: id, code: i % 3 === 0 ? wrongCode(codes[i] ?? '') : codes[i] }),
      ),
      ...phones.slice(0, 10).map((phone) => api.send({ phone, channel: 'voice' })),
    ]);
    for (const res of answers) assert.ok(res.statusCode < 300, res.body);
    await assertCountsExact(workspaceId, 'after concurrent sends and checks');
  });
});
