// Migration 0005 on an existing database: one made by the migrations up to 0004 and holding verifications opens
// with the roll-ups and the phone directory empty (their watermarks at 0). The overview and the search are right
// at once (from the raw rows), and the same once the sweeper's catch-up has filled both read-models.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Migration, Migrator } from 'kysely';
import { createServices } from '../../src/services.js';
import { loadOverview } from '../../src/stats/overview.js';
import { HOUR_MS, periodEndingAt } from '../../src/stats/period.js';
import { openStore } from '../../src/store/database.js';
import * as initial from '../../src/store/migrations/0001-initial.js';
import * as accounts from '../../src/store/migrations/0002-accounts-and-timeline.js';
import * as carriers from '../../src/store/migrations/0003-carriers.js';
import * as deliveryJobs from '../../src/store/migrations/0004-delivery-jobs.js';
import type { WorkspacesTable } from '../../src/store/tables.js';
import { readWatermark } from '../../src/store/watermarks.js';
import { parseLogFilter } from '../../src/verification/log.js';
import { TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { databaseUrlFor, dropDatabase, ensureDatabase, openPlainDatabase } from '../helpers/database.js';
import { insertRows, randomRows, seeded } from '../helpers/verification-rows.js';

const BEFORE_0005: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-accounts-and-timeline': accounts,
  '0003-carriers': carriers,
  '0004-delivery-jobs': deliveryJobs,
};
const END = Date.parse('2026-11-21T09:30:00.000Z');
const DAY = 24 * HOUR_MS;

test('an existing database migrates to 0005; overview and search are right before and after the catch-up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-test-'));
  const url = databaseUrlFor(dir);
  await ensureDatabase(dir);
  try {
    const old = openPlainDatabase(url);
    const migrated = await new Migrator({
      db: old,
      provider: { getMigrations: async () => BEFORE_0005 },
    }).migrateToLatest();
    assert.equal(migrated.error, undefined);
    const workspaceId = 'ws_existing';
    await old
      .insertInto('workspaces')
      // As the release before 0005 stored it: without the columns later migrations add.
      .values({
        id: workspaceId,
        name: 'Existing',
        allowed_countries: null,
        send_limit: 5,
        send_window_seconds: 600,
        request_limit_per_minute: 6000,
        created_at: END - 30 * DAY,
        updated_at: END - 30 * DAY,
      } as WorkspacesTable)
      .execute();
    const rows = randomRows(seeded(17), [workspaceId], 1200, END - 10 * DAY, END - HOUR_MS);
    await insertRows(old, rows);
    await old.destroy();

    const clock = fakeClock(END);
    const store = await openStore({ url, dataDir: dir, poolMax: 2 });
    try {
      const services = createServices({ store, secret: TEST_SECRET, clock, publicUrl: TEST_PUBLIC_URL });
      assert.equal(await readWatermark(store.db, 'verification_rollups'), 0);
      assert.equal(await readWatermark(store.db, 'phone_directory'), 0);
      const suffix = (rows[0]?.phone ?? '').slice(-4);
      const search = async () =>
        (await services.log.list(workspaceId, parseLogFilter({ phone: suffix }))).rows.map((r) => r.id);
      const overviews = async () =>
        Promise.all(
          ['day', 'week'].map((name) => services.overview.load(workspaceId, name as 'day' | 'week')),
        );
      const raw = await Promise.all(
        (['day', 'week'] as const).map((name) =>
          loadOverview(store.db, workspaceId, periodEndingAt(name, END), 0),
        ),
      );
      const before = { overviews: await overviews(), search: await search() };
      assert.deepEqual(before.overviews, raw, 'nothing rolled up yet: the raw rows');
      assert.ok(before.search.length > 0);

      await services.rollups.catchUp();
      await services.phoneDirectory.catchUp();
      assert.ok((await readWatermark(store.db, 'verification_rollups')) > END - DAY);
      const listed = await store.db.selectFrom('phone_directory').select('phone').execute();
      assert.equal(
        listed.length,
        new Set(rows.map((r) => r.phone)).size,
        'every number of the backlog indexed',
      );
      assert.deepEqual(await overviews(), raw, 'from roll-ups: the same');
      assert.deepEqual(await search(), before.search, 'through the directory: the same');
      await services.dispatcher.drain();
    } finally {
      await store.close();
    }
  } finally {
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});
