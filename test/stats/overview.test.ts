// The overview's aggregate queries against the real store (SQLite, then PostgreSQL): counts per UTC bucket, by
// channel and by country, conversion, delivery failures and time to verify; one workspace only; exact period edges.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { loadOverview } from '../../src/stats/overview.js';
import { periodEndingAt } from '../../src/stats/period.js';
import { client, codeFor, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

const at = (iso: string) => Date.parse(iso);
const NOW = at('2026-11-21T09:30:00.000Z');
/** The statuses of the sends neither verified nor undelivered, all zero (a test names the ones it expects). */
const NONE = { pending: 0, canceled: 0, expired: 0, failed: 0 };

describe('stats: overview queries', () => {
  let t: TestApp;
  afterEach(() => t.close());

  async function setUp() {
    const clock = fakeClock(NOW);
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    const api = client(t.app, ws.key);
    const send = async (iso: string, phone: string, channel: 'sms' | 'voice') => {
      clock.set(at(iso));
      const res = await api.send({ phone, channel });
      assert.equal(res.statusCode, 201, res.body);
      return json<{ id: string }>(res).id;
    };
    const verify = async (iso: string, id: string, phone: string) => {
      clock.set(at(iso));
      const res = await api.check({ verification_id: id, code: await codeFor(t.services, phone) });
      assert.equal(json<{ status: string }>(res).status, 'verified');
    };
    return { clock, ws, send, verify };
  }

  const overview = (clock: FakeClock, workspaceId: string, name: 'day' | 'week') =>
    loadOverview(t.store.db, workspaceId, periodEndingAt(name, clock.now()));

  test('the last day: per-hour buckets, totals, channels, countries, median; other workspaces excluded', async () => {
    const { clock, ws, send, verify } = await setUp();
    const au = await send('2026-11-21T07:10:00.000Z', '+61412345601', 'sms');
    await send('2026-11-21T07:10:00.000Z', '+12125550123', 'voice');
    await verify('2026-11-21T07:10:20.000Z', au, '+61412345601');
    const gb = await send('2026-11-21T08:59:59.999Z', '+447400123456', 'sms');
    await verify('2026-11-21T09:00:29.999Z', gb, '+447400123456');
    await send('2026-11-21T09:05:00.000Z', '+61412340999', 'sms'); // rejected: undelivered
    const nz = await send('2026-11-21T09:05:00.000Z', '+64211234570', 'voice');
    await verify('2026-11-21T09:06:30.000Z', nz, '+64211234570');
    // Another workspace's sends, in the same hours, count nowhere here.
    const other = await seedWorkspace(t.services, { name: 'Other' });
    clock.set(at('2026-11-21T09:10:00.000Z'));
    for (const phone of ['+61412345611', '+61412345612'])
      assert.equal((await client(t.app, other.key).send({ phone, channel: 'sms' })).statusCode, 201);
    clock.set(NOW);

    const stats = await overview(clock, ws.workspaceId, 'day');
    assert.deepEqual(stats.totals, {
      ...NONE,
      pending: 1,
      sends: 5,
      verified: 3,
      undelivered: 1,
      conversion: 3 / 5,
      medianSecondsToVerify: 30,
    });
    assert.equal(stats.timeline.length, 24);
    const byHour = new Map(stats.timeline.map((b) => [new Date(b.start).toISOString().slice(11, 16), b]));
    assert.deepEqual(byHour.get('07:00'), {
      start: at('2026-11-21T07:00:00.000Z'),
      ...NONE,
      pending: 1,
      sends: 2,
      verified: 1,
      undelivered: 0,
    });
    assert.deepEqual(byHour.get('08:00'), {
      start: at('2026-11-21T08:00:00.000Z'),
      ...NONE,
      sends: 1,
      verified: 1,
      undelivered: 0,
    });
    assert.deepEqual(byHour.get('09:00'), {
      start: at('2026-11-21T09:00:00.000Z'),
      ...NONE,
      sends: 2,
      verified: 1,
      undelivered: 1,
    });
    assert.equal(
      stats.timeline.reduce((n, b) => n + b.sends, 0),
      5,
      'every other hour is zero',
    );

    assert.deepEqual(stats.channels, [
      { channel: 'sms', sends: 3, verified: 2, undelivered: 1, ...NONE, conversion: 2 / 3 },
      { channel: 'voice', sends: 2, verified: 1, undelivered: 0, ...NONE, pending: 1, conversion: 1 / 2 },
    ]);
    assert.deepEqual(stats.countries, [
      { country: 'AU', sends: 2, verified: 1, undelivered: 1, ...NONE, conversion: 1 / 2 },
      { country: 'GB', sends: 1, verified: 1, undelivered: 0, ...NONE, conversion: 1 },
      { country: 'NZ', sends: 1, verified: 1, undelivered: 0, ...NONE, conversion: 1 },
      { country: 'US', sends: 1, verified: 0, undelivered: 0, ...NONE, pending: 1, conversion: 0 },
    ]);

    const theirs = await overview(clock, other.workspaceId, 'day');
    assert.equal(theirs.totals.sends, 2);
    assert.equal(theirs.totals.medianSecondsToVerify, null);
  });

  test('period edges: the first millisecond of the oldest bucket counts, the one before does not', async () => {
    const { clock, ws, send } = await setUp();
    await send('2026-11-20T09:59:59.999Z', '+61412345621', 'sms'); // one ms before the day's window
    await send('2026-11-20T10:00:00.000Z', '+61412345622', 'voice'); // first ms of the day's window
    await send('2026-11-14T23:59:59.999Z', '+61412345623', 'sms'); // one ms before the week's window
    await send('2026-11-15T00:00:00.000Z', '+61412345624', 'sms'); // first ms of the week's window
    await send('2026-11-21T09:30:00.000Z', '+61412345625', 'sms'); // now
    clock.set(NOW);

    const day = await overview(clock, ws.workspaceId, 'day');
    assert.equal(day.totals.sends, 2);
    assert.equal(day.timeline[0]?.sends, 1, 'the 10:00 send is in the oldest hour');
    assert.equal(day.timeline[23]?.sends, 1, 'the send at this very millisecond is in the current hour');

    const week = await overview(clock, ws.workspaceId, 'week');
    assert.equal(week.totals.sends, 4);
    assert.deepEqual(
      week.timeline.map((b) => [new Date(b.start).toISOString().slice(0, 10), b.sends]),
      [
        ['2026-11-15', 1],
        ['2026-11-16', 0],
        ['2026-11-17', 0],
        ['2026-11-18', 0],
        ['2026-11-19', 0],
        ['2026-11-20', 2],
        ['2026-11-21', 1],
      ],
    );
  });

  test('no sends: zeros everywhere, no conversion rate, no median', async () => {
    const { clock, ws } = await setUp();
    const stats = await overview(clock, ws.workspaceId, 'week');
    assert.deepEqual(stats.totals, {
      ...NONE,
      sends: 0,
      verified: 0,
      undelivered: 0,
      conversion: null,
      medianSecondsToVerify: null,
    });
    assert.equal(stats.timeline.length, 7);
    assert.ok(stats.timeline.every((b) => b.sends === 0));
    assert.deepEqual(stats.channels, []);
    assert.deepEqual(stats.countries, []);
  });

  test('rows without a country (written before it was kept) are counted under the number’s country', async () => {
    const { clock, ws, send } = await setUp();
    await send('2026-11-21T08:00:00.000Z', '+61412345631', 'sms');
    const oldAu = await send('2026-11-21T08:01:00.000Z', '+61412345632', 'sms');
    const oldCa = await send('2026-11-21T08:02:00.000Z', '+14165550123', 'voice');
    await t.store.db
      .updateTable('verifications')
      .set({ country: null })
      .where('id', 'in', [oldAu, oldCa])
      .execute();
    clock.set(NOW);
    const stats = await overview(clock, ws.workspaceId, 'day');
    assert.deepEqual(
      stats.countries.map((c) => [c.country, c.sends]),
      [
        ['AU', 2],
        ['CA', 1],
      ],
    );
  });

  test('not verified, told apart: pending, expired, canceled and failed, alike from raw rows and roll-ups', async () => {
    const { clock, ws, send, verify } = await setUp();
    const api = client(t.app, ws.key);
    const verified = await send('2026-11-21T07:00:00.000Z', '+61412345641', 'sms');
    await verify('2026-11-21T07:00:10.000Z', verified, '+61412345641');
    await send('2026-11-21T07:01:00.000Z', '+61412340999', 'sms'); // undelivered
    const canceled = await send('2026-11-21T07:02:00.000Z', '+61412345642', 'sms');
    assert.equal((await api.cancel(canceled)).statusCode, 200);
    await send('2026-11-21T07:03:00.000Z', '+61412345643', 'sms'); // superseded below: canceled too
    await send('2026-11-21T07:03:30.000Z', '+61412345643', 'voice'); // then expires unused
    const failed = await send('2026-11-21T07:04:00.000Z', '+61412345644', 'sms');
    for (let i = 0; i < 5; i++) await api.check({ verification_id: failed, code: '000000' });
    await send('2026-11-21T09:29:00.000Z', '+61412345645', 'voice'); // still pending at NOW
    clock.set(NOW);
    await t.services.verifications.expireDue();

    const expected = {
      sends: 7,
      verified: 1,
      undelivered: 1,
      pending: 1,
      canceled: 2,
      expired: 1,
      failed: 1,
    };
    const raw = (await overview(clock, ws.workspaceId, 'day')).totals;
    assert.deepEqual(
      { ...raw, conversion: undefined, medianSecondsToVerify: undefined },
      {
        ...expected,
        conversion: undefined,
        medianSecondsToVerify: undefined,
      },
    );
    // The hours of 07:00 are closed: rolled up, they count the same.
    await t.services.rollups.catchUp();
    const rolled = (await overview(clock, ws.workspaceId, 'day')).totals;
    assert.deepEqual(rolled, raw);
    const rows = await t.store.db.selectFrom('verification_rollups').selectAll().execute();
    assert.ok(rows.length > 0, 'the hour was rolled up');
    assert.equal(
      rows.reduce((n, r) => n + Number(r.canceled), 0),
      2,
    );
  });
});
