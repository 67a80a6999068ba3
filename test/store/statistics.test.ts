// Table statistics on PostgreSQL (src/store/statistics.ts): where the server's autovacuum keeps them, the service
// does nothing; where it does not (autovacuum = off, as on the machines this suite runs on), the sweeper analyses
// each table that changed by autovacuum's own measure, one process at a time. The point of it: the send window's
// look-up, planned with statistics, reads the number's own rows, not the whole window of every number.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { OPERATOR } from '../../src/audit/actor.js';
import type { Db } from '../../src/store/database.js';
import { stillPending } from '../../src/store/plan-order.js';
import { createStatistics } from '../../src/store/statistics.js';
import { ATTEMPTS_SQL } from '../../src/verification/attempt-statement.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { insertRows } from '../helpers/verification-rows.js';

describe('table statistics', () => {
  let t: TestApp;
  let db: Db;
  let WS: string;
  before(async () => {
    t = await createTestApp();
    db = t.store.db;
    WS = (await t.services.workspaces.createWorkspace({ name: 'Stats' }, OPERATOR)).id;
  });
  after(() => t?.close());

  const lastAnalysed = async (table: string) =>
    (
      await sql<{ at: Date | null }>`select coalesce(last_analyze, last_autoanalyze) as at
        from pg_stat_user_tables where relname = ${table} and schemaname = current_schema()`.execute(db)
    ).rows[0]?.at ?? null;

  test('SQLite: nothing to keep', async (c) => {
    if (TEST_STORE !== 'sqlite') return c.skip('PostgreSQL: the tests below');
    const statistics = createStatistics(db);
    assert.equal(await statistics.kept(), true);
    assert.deepEqual(await statistics.keep(), []);
  });

  test('PostgreSQL: analyses the changed tables where autovacuum does not, and only those', async (c) => {
    if (TEST_STORE !== 'postgres') return c.skip('SQLite keeps no statistics of this kind');
    const statistics = createStatistics(db);
    const autovacuum = (
      await sql<{ on: boolean }>`select current_setting('autovacuum') = 'on' as on`.execute(db)
    ).rows[0]?.on;
    assert.equal(await statistics.kept(), autovacuum);
    const now = Date.now();
    await insertRows(
      db,
      Array.from({ length: 600 }, (_, i) => ({
        workspaceId: WS,
        phone: `+614120${String(i).padStart(5, '0')}`,
        createdAt: now - i * 100,
      })),
    );
    if (autovacuum) {
      // The server keeps them: the service never analyses.
      assert.deepEqual(await statistics.keep(), []);
      return;
    }
    assert.equal(await lastAnalysed('verifications'), null, 'not analysed yet');
    // The server's counts of changes reach its statistics views within seconds of the commit.
    await eventually('the inserts counted in pg_stat_user_tables', async () => {
      const { rows } = await sql<{ n: string }>`select n_mod_since_analyze as n from pg_stat_user_tables
        where relname = 'verifications' and schemaname = current_schema()`.execute(db);
      return Number(rows[0]?.n) >= 600;
    });
    // Two processes at once: one analyses, the other finds the lock taken (or nothing left to do).
    const [a, b] = await Promise.all([statistics.keep(), createStatistics(db).keep()]);
    const analysed = [...a, ...b];
    assert.equal(analysed.filter((name) => name === 'verifications').length, 1, JSON.stringify({ a, b }));
    assert.ok(!analysed.includes('guess_failures'), 'an unchanged table is left alone');
    assert.notEqual(await lastAnalysed('verifications'), null);
    // Nothing changed since: nothing more to do.
    assert.deepEqual(await statistics.keep(), []);
  });

  test('PostgreSQL: with statistics, the send window look-up reads the number’s index, even as a generic plan', async (c) => {
    if (TEST_STORE !== 'postgres') return c.skip('SQLite plans by its own rules');
    await createStatistics(db).keep();
    if (!(await lastAnalysed('verifications'))) await sql`analyze verifications`.execute(db);
    // The shape of number-state.ts's look-up, as a prepared statement whose generic plan is forced.
    const plan = await db.connection().execute(async (conn) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
      await sql`prepare window_probe(text, text, bigint, text, bigint) as
        select created_at from verifications where workspace_id = $1 and phone = $2 and created_at > $3
        and mode = $4 order by created_at + 0 desc limit 1 offset $5`.execute(conn);
      try {
        const since = Date.now() - 600_000;
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain execute window_probe(${sql.lit(WS)},
          '+61412000001', ${sql.lit(since)}, 'live', 4)`.execute(conn);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`deallocate window_probe`.execute(conn);
        await sql`reset plan_cache_mode`.execute(conn);
      }
    });
    assert.match(plan, /verifications_send_window|verifications_workspace_phone/, plan);
    assert.doesNotMatch(plan, /verifications_workspace_created|verifications_created/, plan);
  });

  test('PostgreSQL: a check’s attempts find their verifications by id, even where statistics say no code is pending', async (c) => {
    if (TEST_STORE !== 'postgres') return c.skip('SQLite plans by its own rules');
    // Statistics taken when every row was finished (a large import, say), then pending codes arrive: fewer than
    // the changes that would bring the next ANALYZE. The partial index of pending codes then looks empty.
    const now = Date.now();
    const rows = (from: number, n: number, status: 'expired' | 'pending') =>
      Array.from({ length: n }, (_, i) => ({
        workspaceId: WS,
        phone: `+614130${String(from + i).padStart(5, '0')}`,
        createdAt: now - i,
        status,
        ttlSeconds: 600,
      }));
    await insertRows(db, rows(0, 2000, 'expired'));
    await sql`analyze verifications`.execute(db);
    await insertRows(db, rows(5000, 150, 'pending'));
    // The statement of one check and of a turn's (src/verification/attempt-statement.ts), for two here.
    const plan = await db.connection().execute(async (conn) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
      await sql.raw(`prepare attempts_probe as ${ATTEMPTS_SQL}`).execute(conn);
      try {
        const { rows: lines } = await sql<{ 'QUERY PLAN': string }>`explain execute attempts_probe(
          '{ver_x,ver_y}', '{f,t}', '{t,f}', '{evt_a,evt_c}', '{1,3}', '{evt_b,evt_d}', '{2,4}',
          ${sql.lit(`{${WS},${WS}}`)}, '{+61413000001,+61413000002}', '{0,0}', '{4,4}', ${sql.lit(now)})`.execute(
          conn,
        );
        return lines.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`deallocate attempts_probe`.execute(conn);
        await sql`reset plan_cache_mode`.execute(conn);
      }
    });
    assert.match(plan, /verifications_pkey/, plan);
    assert.doesNotMatch(plan, /one_pending/, plan);
  });

  test('PostgreSQL: an update of a pending verification by id reads the primary key, even in a custom plan', async (c) => {
    if (TEST_STORE !== 'postgres') return c.skip('SQLite plans by its own rules');
    // The statistics of the test above (taken before its pending codes came): the partial index looks empty. A
    // custom plan knows every value, as PostgreSQL's first runs of a prepared statement do.
    const update = db
      .updateTable('verifications')
      .set({ status: sql.lit('canceled') })
      .where('id', '=', sql.lit('ver_x'))
      .where(stillPending)
      .where('expires_at', '>', sql.lit(0))
      .compile();
    assert.deepEqual(update.parameters, []);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(update.sql)}`.execute(db);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(plan, /verifications_pkey/, plan);
    assert.doesNotMatch(plan, /one_pending/, plan);
  });
});
