// Issue 10, item 5: the overview from roll-ups kept by the sweeper, never by a request. Whatever the data, the day
// and week overviews read from roll-ups equal the same overviews read from the raw rows alone (the code before
// roll-ups: loadOverview with nothing rolled up); an hour is rolled up only once nothing in it can change (a
// pending code holds it back, expired or not); late changes to finished codes change nothing counted; rolling
// again writes nothing, and a step that lost the race writes nothing; two processes rolling up one database at
// once write each hour (and each slice of the phone directory) exactly once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from '../../src/app.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { recordDeliveryFailure } from '../../src/delivery/verification-delivery.js';
import { createServices, type Services } from '../../src/services.js';
import { loadOverview } from '../../src/stats/overview.js';
import { HOUR_MS, periodEndingAt } from '../../src/stats/period.js';
import { advanceWatermark, readWatermark, SETTLE_MS } from '../../src/store/watermarks.js';
import { startSweeper } from '../../src/sweeper.js';
import type { Status } from '../../src/vocabulary/statuses.js';
import {
  client,
  json,
  openTestStore,
  seedWorkspace,
  TEST_PUBLIC_URL,
  TEST_SECRET,
  type TestStoreHandle,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { insertRows, randomRows, seeded, testSeed } from '../helpers/verification-rows.js';

const execFileAsync = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const PROCESS = join(ROOT, 'test', 'helpers', 'read-models-process.ts');
const at = (iso: string) => Date.parse(iso);
const MIN = 60_000;
const DAY = 24 * HOUR_MS;
const END = at('2026-11-21T09:30:00.000Z');

describe('stats: roll-ups', () => {
  let handle: TestStoreHandle;
  let services: Services;
  afterEach(async () => {
    await services.dispatcher.drain();
    await handle.close();
  });

  async function setUp(now: number, retentionDays?: number): Promise<FakeClock> {
    const clock = fakeClock(now);
    handle = await openTestStore();
    services = createServices({
      store: handle.store,
      secret: TEST_SECRET,
      clock,
      publicUrl: TEST_PUBLIC_URL,
      retentionDays,
    });
    return clock;
  }
  const db = () => handle.store.db;
  const workspace = async (name: string) =>
    (await services.workspaces.createWorkspace({ name }, OPERATOR)).id;

  /** The overview of `workspaceId` from roll-ups, and from the raw rows alone, at `now`: they must be equal. */
  async function assertSameAsRaw(workspaceId: string, now: number, label: string) {
    for (const name of ['day', 'week'] as const) {
      const period = periodEndingAt(name, now);
      const raw = await loadOverview(db(), workspaceId, period, 0);
      const rolled = await loadOverview(db(), workspaceId, period);
      assert.deepEqual(rolled, raw, `${label}: ${name}`);
    }
  }

  test('randomised: day and week from roll-ups equal the raw rows, at moments across hour edges', async () => {
    const seed = testSeed();
    const random = seeded(seed);
    const clock = await setUp(END - 3 * DAY);
    const [a, b] = [await workspace('A'), await workspace('B')];
    await insertRows(db(), randomRows(random, [a, a, b], 3000, END - 9 * DAY, END));
    // Codes still pending at the end: their hour may not be rolled up while they are.
    await insertRows(
      db(),
      Array.from({ length: 5 }, (_, i) => ({
        workspaceId: a,
        phone: `+6141234500${i}`,
        createdAt: END - (i + 1) * 3 * MIN,
        status: 'pending' as Status,
        ttlSeconds: 900,
      })),
    );
    const moments = [
      END - 3 * DAY,
      at('2026-11-19T07:00:00.000Z'),
      at('2026-11-19T07:00:00.001Z'),
      at('2026-11-19T07:59:59.999Z'),
      END - DAY - 1,
      END - 20 * MIN,
      END,
    ];
    for (const now of moments) {
      clock.set(now);
      await services.rollups.catchUp();
      const rolledBefore = await services.rollups.rolledBefore();
      assert.ok(rolledBefore <= now - SETTLE_MS, `seed ${seed}: nothing rolled up that could still appear`);
      assert.ok(
        rolledBefore > periodEndingAt('week', now).since,
        `seed ${seed}: the week is partly rolled up`,
      );
      for (const ws of [a, b]) await assertSameAsRaw(ws, now, `seed ${seed}, ${new Date(now).toISOString()}`);
    }
    const rows = await db().selectFrom('verification_rollups').select('hour').execute();
    assert.ok(rows.length > 100, 'the hours went into roll-up rows');
  });

  test('an hour with a pending code waits, even past its expiry; a late change before that is counted', async () => {
    const clock = await setUp(at('2026-11-21T10:50:00.000Z'));
    const acme = await seedWorkspace(services);
    const ws = acme.workspaceId;
    const [older, verified, pending] = await insertRows(db(), [
      {
        workspaceId: ws,
        phone: '+61412345001',
        createdAt: at('2026-11-21T09:10:00.000Z'),
        status: 'verified',
      },
      {
        workspaceId: ws,
        phone: '+61412345002',
        createdAt: at('2026-11-21T10:19:40.000Z'),
        status: 'verified',
      },
      {
        workspaceId: ws,
        phone: '+61412345003',
        createdAt: at('2026-11-21T10:50:00.000Z'),
        status: 'pending',
        ttlSeconds: 900,
      },
    ]);
    assert.ok(older && verified && pending);

    // 11:20: the code of 10:50 expired at 11:05, but its expiry is not recorded: it may still change.
    clock.set(at('2026-11-21T11:20:00.000Z'));
    await services.rollups.catchUp();
    assert.equal(await services.rollups.rolledBefore(), at('2026-11-21T10:00:00.000Z'), '09:00 only');
    // A carrier's late failure report still reaches a code stored as pending.
    await recordDeliveryFailure(
      db(),
      pending,
      { errorCode: 'delivery_failed', errorMessage: 'late' },
      clock.now(),
    );
    await assertSameAsRaw(ws, clock.now(), 'late report before the roll-up');

    // Expiry recorded (nothing pending left): 10:00 closes once SETTLE_MS has passed after 11:00.
    await services.verifications.expireDue();
    clock.set(at('2026-11-21T11:25:00.000Z'));
    await services.rollups.catchUp();
    assert.equal(await services.rollups.rolledBefore(), at('2026-11-21T11:00:00.000Z'));
    const before = await loadOverview(db(), ws, periodEndingAt('day', clock.now()));
    assert.equal(before.totals.undelivered, 1, 'the late report is in the roll-up');

    // Every change a finished code can still get leaves what is counted as it was: a check and a cancel through
    // the API, late failure reports.
    const now = clock.now();
    const app = await buildApp({ services });
    try {
      const api = client(app, acme.key);
      const check = await api.check({ verification_id: verified, code: '123456' });
      assert.equal(
        json<{ status: string }>(check).status,
        'verified',
        'a check leaves a verified code verified',
      );
      const cancel = await api.cancel(verified);
      assert.equal(json<{ status: string }>(cancel).status, 'verified', 'a cancel too');
    } finally {
      await app.close();
    }
    const late = await recordDeliveryFailure(
      db(),
      verified,
      { errorCode: 'delivery_failed', errorMessage: 'x' },
      now,
    );
    assert.equal(late?.status, 'verified', 'a late report on a verified code keeps its status');
    await recordDeliveryFailure(db(), older, { errorCode: 'delivery_failed', errorMessage: 'y' }, now);
    await assertSameAsRaw(ws, now, 'late changes after the roll-up');
    assert.deepEqual(await loadOverview(db(), ws, periodEndingAt('day', now)), before);
  });

  test('rolling again writes nothing; a step that lost the race writes nothing', async () => {
    const clock = await setUp(END);
    const ws = await workspace('Acme');
    await insertRows(db(), randomRows(seeded(7), [ws], 500, END - 2 * DAY, END - HOUR_MS));
    const first = await services.rollups.catchUp();
    assert.ok(first.hours > 0);
    const rows = await db().selectFrom('verification_rollups').selectAll().orderBy('hour').execute();
    assert.deepEqual(await services.rollups.catchUp(), { hours: 0 });
    clock.advance(MIN);
    assert.deepEqual(await services.rollups.catchUp(), { hours: 0 }, 'no new closed hour yet');
    assert.deepEqual(
      await db().selectFrom('verification_rollups').selectAll().orderBy('hour').execute(),
      rows,
    );

    // Another process moved the watermark first: this step's compare-and-set finds it moved.
    const watermark = await readWatermark(db(), 'verification_rollups');
    let wrote = false;
    const moved = await advanceWatermark(
      db(),
      'verification_rollups',
      watermark - HOUR_MS,
      watermark,
      async () => {
        wrote = true;
      },
    );
    assert.equal(moved, false);
    assert.equal(wrote, false);
    assert.equal(await readWatermark(db(), 'verification_rollups'), watermark);
  });

  test('retention: roll-ups of pruned hours go with their rows; the overview still equals the raw rows', async () => {
    const clock = await setUp(END, 1);
    const ws = await workspace('Acme');
    await insertRows(db(), randomRows(seeded(11), [ws], 800, END - 3 * DAY, END - HOUR_MS));
    await services.rollups.catchUp();
    await services.phoneDirectory.catchUp();
    const pruned = await services.retention.prune();
    const cutoff = Math.floor((clock.now() - DAY) / HOUR_MS) * HOUR_MS;
    assert.ok(pruned.verifications > 0 && pruned.rollups > 0 && pruned.numbers > 0, JSON.stringify(pruned));
    const oldRows = await db()
      .selectFrom('verifications')
      .select('id')
      .where('created_at', '<', cutoff)
      .execute();
    assert.deepEqual(oldRows, [], 'every verification before the whole-hour cutoff went');
    const oldHours = await db()
      .selectFrom('verification_rollups')
      .select('hour')
      .where('hour', '<', cutoff)
      .execute();
    assert.deepEqual(oldHours, [], 'and every roll-up of those hours');
    assert.ok(
      (await db().selectFrom('verification_rollups').select('hour').execute()).length > 0,
      'newer kept',
    );
    // The directory keeps exactly the numbers that still have a verification.
    const left = await db().selectFrom('verifications').select('phone').distinct().execute();
    const listed = await db().selectFrom('phone_directory').select('phone').execute();
    assert.deepEqual(listed.map((r) => r.phone).sort(), left.map((r) => r.phone).sort());
    // The week reaches past the retention: counted alike from roll-ups and from the raw rows.
    await assertSameAsRaw(ws, clock.now(), 'after pruning');
  });

  test('the sweeper keeps the roll-ups and the phone directory up to date', async () => {
    const clock = await setUp(END);
    const ws = await workspace('Acme');
    await insertRows(db(), randomRows(seeded(3), [ws], 200, END - DAY, END - HOUR_MS));
    const quiet = { debug() {}, info() {}, warn() {} } as unknown as FastifyBaseLogger;
    const stop = startSweeper(services, 20, quiet);
    try {
      await eventually('the sweeper rolled up and indexed', async () => {
        const rolled = await readWatermark(db(), 'verification_rollups');
        const indexed = await readWatermark(db(), 'phone_directory');
        return (
          rolled === Math.floor((clock.now() - SETTLE_MS) / HOUR_MS) * HOUR_MS &&
          indexed === clock.now() - SETTLE_MS
        );
      });
    } finally {
      await stop();
    }
    await assertSameAsRaw(ws, clock.now(), 'swept');
  });
});

describe('stats: roll-ups and the phone directory, two processes at once', () => {
  test('each hour and each slice is written once: the counts match the raw rows exactly', async () => {
    const handle = await openTestStore();
    try {
      const { db } = handle.store;
      const services = createServices({
        store: handle.store,
        secret: TEST_SECRET,
        publicUrl: TEST_PUBLIC_URL,
      });
      const ws = (await services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR)).id;
      // Real time: the processes run on the system clock. Some numbers get several sends.
      const now = Date.now();
      const rows = randomRows(seeded(5), [ws], 3000, now - 6 * DAY, now - SETTLE_MS - HOUR_MS);
      for (const [i, row] of rows.entries()) if (i % 3 === 0) row.phone = (rows[i + 1] ?? row).phone;
      await insertRows(db, rows);
      await handle.store.committed();

      const run = () =>
        execFileAsync(process.execPath, ['--import', 'tsx', PROCESS, handle.databaseUrl, handle.dir], {
          cwd: ROOT,
        });
      const results = (await Promise.all([run(), run()])).map(
        (r) => JSON.parse(r.stdout) as { hours: number; steps: number },
      );
      assert.ok(results.every((r) => r.hours + r.steps >= 0));
      assert.ok(results.reduce((n, r) => n + r.hours, 0) > 0, 'the hours were rolled up');

      for (const name of ['day', 'week'] as const) {
        const period = periodEndingAt(name, now);
        assert.deepEqual(await loadOverview(db, ws, period), await loadOverview(db, ws, period, 0), name);
      }
      // The directory counted every send once: a slice written twice would count its sends twice.
      const expected = new Map<string, { sends: number; last: number }>();
      for (const row of rows) {
        const seen = expected.get(row.phone) ?? { sends: 0, last: 0 };
        expected.set(row.phone, { sends: seen.sends + 1, last: Math.max(seen.last, row.createdAt) });
      }
      const listed = await db.selectFrom('phone_directory').selectAll().execute();
      assert.equal(listed.length, expected.size);
      for (const entry of listed) {
        assert.deepEqual(
          { sends: Number(entry.sends), last: Number(entry.last_created_at) },
          expected.get(entry.phone),
          entry.phone,
        );
        assert.equal(entry.reversed, [...entry.phone.slice(1)].reverse().join(''));
      }
      await services.dispatcher.drain();
    } finally {
      await handle.close();
    }
  });
});
