// The hot-path mechanisms of the store: queries compiled once (src/store/prepared.ts) and statements prepared once
// per connection (src/store/statement-cache.ts), on the store under test. They must change nothing but speed:
// same rows, same parameters, inside and outside transactions, with any value (NUL, quotes, huge text).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { prepared, preparedInsert } from '../../src/store/prepared.js';
import { cacheSqliteStatements } from '../../src/store/statement-cache.js';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';

describe('queries compiled once', () => {
  let handle: TestStoreHandle;
  before(async () => {
    handle = await openTestStore();
  });
  after(() => handle.close());

  test('builds once, then runs with each call’s own values, in and out of transactions', async () => {
    const { db } = handle.store;
    let builds = 0;
    const insert = prepared((d, p: { ws: string; start: number }) => {
      builds += 1;
      return d
        .insertInto('request_counters')
        .values({ workspace_id: p.ws, window_start: p.start, count: 1 })
        .onConflict((oc) =>
          oc
            .columns(['workspace_id', 'window_start'])
            .doUpdateSet({ count: sql`request_counters.count + 1` }),
        )
        .returning('count');
    });
    const odd = `x'; drop table request_counters; --${'é'.repeat(5000)}`;
    assert.deepEqual((await insert(db, { ws: 'ws_a', start: 1 })).rows, [{ count: 1 }]);
    assert.deepEqual((await insert(db, { ws: 'ws_a', start: 1 })).rows, [{ count: 2 }]);
    assert.deepEqual((await insert(db, { ws: odd, start: 2 })).rows, [{ count: 1 }]);
    await db.transaction().execute(async (tx) => {
      assert.deepEqual((await insert(tx, { ws: 'ws_a', start: 1 })).rows, [{ count: 3 }]);
    });
    assert.equal(builds, 1, 'built and compiled once for this dialect');
    const rows = await db
      .selectFrom('request_counters')
      .select(['workspace_id', 'count'])
      .orderBy('count')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.workspace_id.length, r.count]),
      [
        [odd.length, 1],
        [4, 3],
      ],
    );
  });

  test('whole-row inserts compile once from the first row; a row with other columns is refused', async () => {
    const { db } = handle.store;
    const insert = preparedInsert('request_counters');
    await insert(db, { workspace_id: 'ws_rows', window_start: 1, count: 7 });
    await db
      .transaction()
      .execute((tx) => insert(tx, { workspace_id: 'ws_rows', window_start: 2, count: 8 }));
    const rows = await db
      .selectFrom('request_counters')
      .select(['window_start', 'count'])
      .where('workspace_id', '=', 'ws_rows')
      .orderBy('window_start')
      .execute();
    assert.deepEqual(rows, [
      { window_start: 1, count: 7 },
      { window_start: 2, count: 8 },
    ]);
    await assert.rejects(
      insert(db, { workspace_id: 'ws_rows', window_start: 3 } as never),
      /must give the columns workspace_id, window_start, count/,
    );
  });

  test('run at once or queued, a statement never lands in another request’s transaction', async () => {
    // On SQLite a compiled-once statement runs at once when the connection is free; while another request's
    // transaction holds it across an await, the statement must wait its turn, not run inside that transaction
    // (it would be rolled back with it). On PostgreSQL each has its own connection anyway.
    const { db } = handle.store;
    const insert = preparedInsert('request_counters');
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      started = resolve;
    });
    const failing = db.transaction().execute(async (tx) => {
      await insert(tx, { workspace_id: 'ws_rolled_back', window_start: 1, count: 1 });
      started();
      await held;
      throw new Error('this request fails');
    });
    await inside;
    // Issued while the transaction above holds the connection, in the middle of it.
    const outside = insert(db, { workspace_id: 'ws_kept', window_start: 1, count: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await assert.rejects(failing, /this request fails/);
    await outside;
    const rows = await db
      .selectFrom('request_counters')
      .select('workspace_id')
      .where('workspace_id', 'in', ['ws_rolled_back', 'ws_kept'])
      .execute();
    assert.deepEqual(
      rows.map((r) => r.workspace_id),
      ['ws_kept'],
    );
  });

  test('an input written into the SQL text instead of a parameter is refused when the plan is made', async () => {
    const bad = prepared((d, p: { name: string }) =>
      d.selectFrom('request_counters').select(sql.lit(p.name).as('x')),
    );
    await assert.rejects(bad(handle.store.db, { name: 'a' }), /an input was written into the SQL/);
  });
});

describe('SQLite statements prepared once', () => {
  test('the same text gives the same prepared statement; the least recently used goes first', () => {
    const database = cacheSqliteStatements(new SQLite(':memory:'));
    const first = database.prepare('select 1 as one');
    assert.equal(database.prepare('select 1 as one'), first);
    for (let i = 0; i < 600; i += 1) database.prepare(`select ${i} as n`);
    assert.notEqual(database.prepare('select 1 as one'), first, 'evicted after 500 others');
    assert.deepEqual(database.prepare('select ? as v').get('a\u0000b'), { v: 'a\u0000b' });
    database.close();
  });
});
