// A store is ready (/readyz) when the database answers and has applied every migration this build knows. The
// probe reads the migrator's table, nothing else: it names what is pending, and on PostgreSQL it answers within
// the shortest statement timeout the configuration allows, where Kysely's catalog introspection did not always
// on a loaded machine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/store/database.js';
import { migratorFor, pendingMigrations } from '../../src/store/migrate.js';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';
import { openPlainDatabase, TEST_STORE } from '../helpers/database.js';

/** DATABASE_STATEMENT_TIMEOUT_MS's minimum. */
const SHORTEST_TIMEOUT_MS = 100;
/** The newest migrations, newest last. */
const LAST = '0022-sqlite-range-numbers-by-key';
const BEFORE_LAST = '0021-sqlite-sids-by-key';

describe('store readiness', () => {
  let handle: TestStoreHandle;
  before(async () => {
    handle = await openTestStore();
  });
  after(async () => {
    await handle.close();
  });

  test('a store just opened has nothing pending and is ready', async () => {
    assert.deepEqual(await pendingMigrations(handle.store.db), []);
    await handle.store.checkReady();
  });

  test('a migration undone is named pending, and the store is not ready until it is applied again', async () => {
    // Stepped on a connection of its own, as another process's start or an operator's tool would.
    const plain = openPlainDatabase(handle.databaseUrl);
    const migrator = migratorFor(plain);
    try {
      assert.equal((await migrator.migrateTo(BEFORE_LAST)).error, undefined);
      try {
        assert.deepEqual(await pendingMigrations(handle.store.db), [LAST]);
        await assert.rejects(handle.store.checkReady(), { message: `migrations not applied: ${LAST}` });
      } finally {
        assert.equal((await migrator.migrateToLatest()).error, undefined);
      }
    } finally {
      await plain.destroy();
    }
    await handle.store.checkReady();
  });

  test('on PostgreSQL the probe answers under the shortest statement timeout, many times over', {
    skip: TEST_STORE !== 'postgres' && 'PostgreSQL only: SQLite has no statement timeout',
  }, async () => {
    const store = await openStore({
      url: handle.databaseUrl,
      dataDir: handle.dir,
      poolMax: 2,
      statementTimeoutMs: SHORTEST_TIMEOUT_MS,
    });
    try {
      for (let n = 0; n < 50; n++) await store.checkReady();
    } finally {
      await store.close();
    }
  });
});
