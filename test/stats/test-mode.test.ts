// The overview's modes (docs/dashboard.md, "Test mode"): the roll-ups hold live verifications only, so the live
// overview (rolled up or raw) never counts a test send, and the test overview, read from the raw rows of the
// period, counts the test sends and nothing else, before and after the hours are rolled up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices, type Services } from '../../src/services.js';
import { loadOverview } from '../../src/stats/overview.js';
import { HOUR_MS, periodEndingAt } from '../../src/stats/period.js';
import { openTestStore, TEST_PUBLIC_URL, TEST_SECRET, type TestStoreHandle } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { insertRows, type RowSpec } from '../helpers/verification-rows.js';

const END = Date.parse('2026-11-21T09:30:00.000Z');

describe('stats: live and test data apart', () => {
  let handle: TestStoreHandle;
  let services: Services;
  let ws = '';

  before(async () => {
    handle = await openTestStore();
    services = createServices({
      store: handle.store,
      secret: TEST_SECRET,
      clock: fakeClock(END),
      publicUrl: TEST_PUBLIC_URL,
    });
    ws = (await services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR)).id;
    const rows: RowSpec[] = [];
    for (let h = 1; h <= 20; h++) {
      const createdAt = END - h * HOUR_MS;
      rows.push({
        workspaceId: ws,
        phone: `+614123450${String(h).padStart(2, '0')}`,
        createdAt,
        status: 'verified',
      });
      for (let i = 0; i < 2; i++) {
        rows.push({
          workspaceId: ws,
          phone: `+614123460${String(h).padStart(2, '0')}`,
          createdAt: createdAt + i,
          status: i === 0 ? 'verified' : 'expired',
          mode: 'test',
        });
      }
    }
    await insertRows(handle.store.db, rows);
  });
  after(async () => {
    await services.dispatcher.drain();
    await handle.close();
  });

  test('before and after the roll-ups: live counts live sends only, test counts test sends only', async () => {
    const period = periodEndingAt('day', END);
    const check = async (label: string) => {
      const live = await loadOverview(handle.store.db, ws, period);
      const raw = await loadOverview(handle.store.db, ws, period, 0);
      const testStats = await loadOverview(handle.store.db, ws, period, undefined, 'test');
      assert.deepEqual(live, raw, `${label}: rolled-up live equals raw live`);
      assert.equal(live.totals.sends, 20, label);
      assert.equal(live.totals.verified, 20, label);
      assert.equal(testStats.totals.sends, 40, label);
      assert.equal(testStats.totals.verified, 20, label);
      assert.equal(testStats.totals.expired, 20, label);
    };
    await check('nothing rolled up');
    await services.rollups.catchUp();
    assert.ok((await services.rollups.rolledBefore()) > period.since, 'hours of the day were rolled up');
    const rolled = await handle.store.db
      .selectFrom('verification_rollups')
      .select((eb) => eb.fn.sum<number>('sends').as('sends'))
      .where('workspace_id', '=', ws)
      .executeTakeFirstOrThrow();
    assert.ok(Number(rolled.sends) <= 20, 'the roll-ups hold live sends only');
    await check('rolled up');
    assert.equal((await services.overview.load(ws, 'day', 'test')).totals.sends, 40);
  });
});
