// PostgreSQL migrations are not cut by the serving statement timeout: a start on a loaded database (a CREATE
// TABLE slower than DATABASE_STATEMENT_TIMEOUT_MS), or one that waits for another process's migration, still
// migrates and serves. The serving connections keep the timeout, and a migration's wait for a table's lock stays
// bounded by it (a migration never queues requests behind it for longer than a request would wait).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../../src/store/database.js';
import { migratorFor } from '../../src/store/migrate.js';
import {
  databaseUrlFor,
  dropDatabase,
  ensureDatabase,
  openPlainDatabase,
  TEST_STORE,
} from '../helpers/database.js';

const PG_ONLY =
  TEST_STORE !== 'postgres' &&
  'PostgreSQL only: SQLite has no statement timeout and no migration lock to wait on';
/** The shortest statement timeout the configuration allows (DATABASE_STATEMENT_TIMEOUT_MS's minimum). */
const TIMEOUT_MS = 100;
/** Kysely's migration lock (its PostgreSQL adapter's LOCK_ID). */
const MIGRATION_LOCK = '3853314791062309107';
/** A hang fails clearly after this; far above any bound the service sets itself here. */
const HANG_MS = 20_000;

describe('PostgreSQL migrations and the statement timeout', { skip: PG_ONLY }, () => {
  let dir: string;
  let admin: pg.Client;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pv-migration-timeouts-'));
  });
  after(async () => {
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh database for one test, with an admin connection to it. */
  async function freshDatabase(name: string): Promise<string> {
    const sub = join(dir, name);
    await ensureDatabase(sub);
    const url = databaseUrlFor(sub);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    return url;
  }

  test('a migration statement slower than the statement timeout completes, and serving statements keep the timeout', async () => {
    const url = await freshDatabase('slow-ddl');
    try {
      // The fifth DDL statement (inside the migrations) sleeps three timeouts long: an event trigger runs inside
      // the statement.
      await admin.query(`
        create sequence slow_ddl_count;
        create function slow_ddl() returns event_trigger language plpgsql as $$
        begin
          if nextval('slow_ddl_count') = 5 then perform pg_sleep(${(3 * TIMEOUT_MS) / 1000}); end if;
        end $$;
        create event trigger slow_ddl on ddl_command_start execute function slow_ddl();
      `);
      const store = await openStore({ url, dataDir: dir, poolMax: 2, statementTimeoutMs: TIMEOUT_MS });
      try {
        const { rows } = await admin.query<{ n: string }>('select last_value as n from slow_ddl_count');
        assert.ok(Number(rows[0]?.n) >= 5, 'the fifth DDL statement ran, and slept past the timeout');
        await store.checkReady();
        await assert.rejects(sql`select pg_sleep(${(3 * TIMEOUT_MS) / 1000})`.execute(store.db), {
          code: '57014',
        });
      } finally {
        await store.close();
      }
    } finally {
      await admin.query('drop event trigger if exists slow_ddl');
      await admin.end();
      await dropDatabase(join(dir, 'slow-ddl'));
    }
  });

  test('a start that waits for another process migrating (its lock held) longer than the statement timeout opens once it is freed', async () => {
    const url = await freshDatabase('waits');
    try {
      await admin.query(`select pg_advisory_lock(${MIGRATION_LOCK})`);
      let opened = false;
      const opening = openStore({ url, dataDir: dir, poolMax: 2, statementTimeoutMs: TIMEOUT_MS }).then(
        (store) => {
          opened = true;
          return store;
        },
      );
      // Ten timeouts long, the start still waits (it would have failed at the first).
      await new Promise((resolve) => setTimeout(resolve, 10 * TIMEOUT_MS));
      assert.equal(opened, false, 'the start waits while the lock is held');
      await admin.query(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
      const store = await opening;
      try {
        await store.checkReady();
      } finally {
        await store.close();
      }
    } finally {
      await admin.end();
      await dropDatabase(join(dir, 'waits'));
    }
  });
  test("a migration waiting for a table's lock gives up as a request would, and the next start applies it", async () => {
    const url = await freshDatabase('locked-table');
    try {
      await (await openStore({ url, dataDir: dir, poolMax: 2 })).close();
      // Migration 0020 (it changes verification_events' key) and those after it not applied yet: undone by their `down`.
      const plain = openPlainDatabase(url);
      try {
        const undone = await migratorFor(plain).migrateTo('0019-sweep-indexes');
        assert.equal(undone.error, undefined);
      } finally {
        await plain.destroy();
      }
      await admin.query('begin');
      await admin.query('lock table verification_events in access exclusive mode');
      let held = true;
      let hang: NodeJS.Timeout | undefined;
      const opening = openStore({ url, dataDir: dir, poolMax: 2, statementTimeoutMs: 3 * TIMEOUT_MS }).then(
        (store) => store.close().then(() => 'opened'),
        (err: Error) => err,
      );
      try {
        // Settles while the lock is still held: a lock wait of the statement timeout, not the migrator's hour.
        const refused = await Promise.race([
          opening,
          new Promise<string>((resolve) => {
            hang = setTimeout(() => resolve('still waiting'), HANG_MS);
          }),
        ]);
        assert.ok(refused instanceof Error, `the start ${String(refused)} while the table was locked`);
        assert.match(
          refused.message,
          /migration 0020-keyed-timelines failed: canceling statement due to lock timeout/,
        );
        await admin.query('rollback');
        held = false;
        const store = await openStore({ url, dataDir: dir, poolMax: 2, statementTimeoutMs: 3 * TIMEOUT_MS });
        try {
          await store.checkReady();
        } finally {
          await store.close();
        }
      } finally {
        clearTimeout(hang);
        if (held) await admin.query('rollback');
        await opening;
      }
    } finally {
      await admin.end();
      await dropDatabase(join(dir, 'locked-table'));
    }
  });
});
