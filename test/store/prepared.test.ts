// The hot-path mechanisms of the store: queries compiled once (src/store/prepared.ts) and statements prepared once
// per connection (src/store/statement-cache.ts), on the store under test. They must change nothing but speed:
// same rows, same parameters, inside and outside transactions, with any value (NUL, quotes, huge text).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { holdInserts, prepared, preparedInsert, preparedInsertRows } from '../../src/store/prepared.js';
import { cacheSqliteStatements, withStablePlan } from '../../src/store/statement-cache.js';
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

  // holdInserts: on PostgreSQL a stretch's whole-row inserts go as one statement (one round trip); on SQLite they
  // run as made. Either way: the same rows, in order, visible to the stretch's own prepared reads, all or none.
  const countOf = prepared((d, p: { ws: string }) =>
    d.selectFrom('request_counters').select(sql<number>`count(*)`.as('n')).where('workspace_id', '=', p.ws),
  );
  const counters = async (ws: string) =>
    handle.store.db
      .selectFrom('request_counters')
      .select(['window_start', 'count'])
      .where('workspace_id', '=', ws)
      .orderBy('window_start')
      .execute();

  test('held inserts land with the transaction, every row as given; a prepared read in the stretch sees them', async () => {
    const { db } = handle.store;
    const insert = preparedInsert('request_counters');
    const insertRows = preparedInsertRows('request_counters');
    const odd = `ws_held'$1 "${'é'.repeat(3000)}`;
    await db.transaction().execute(async (tx) => {
      const seen = await holdInserts(tx, async () => {
        await insert(tx, { workspace_id: odd, window_start: 1, count: 1 });
        await insertRows(tx, [
          { workspace_id: odd, window_start: 2, count: 2 },
          { workspace_id: odd, window_start: 3, count: 3 },
        ]);
        const read = Number((await countOf(tx, { ws: odd })).rows[0]?.n);
        await insert(tx, { workspace_id: odd, window_start: 4, count: 4 });
        return read;
      });
      assert.equal(seen, 3, 'the read inside the stretch saw the three rows held before it');
    });
    assert.deepEqual(await counters(odd), [
      { window_start: 1, count: 1 },
      { window_start: 2, count: 2 },
      { window_start: 3, count: 3 },
      { window_start: 4, count: 4 },
    ]);
  });

  test('a held insert that fails fails the stretch and its transaction: nothing of it is kept', async () => {
    const { db } = handle.store;
    const insert = preparedInsert('request_counters');
    const attempt = db.transaction().execute(async (tx) => {
      await holdInserts(tx, async () => {
        await insert(tx, { workspace_id: 'ws_held_fail', window_start: 1, count: 1 });
        // The same primary key again: refused, by the statement that carries both on PostgreSQL.
        await insert(tx, { workspace_id: 'ws_held_fail', window_start: 1, count: 2 });
      });
    });
    await assert.rejects(attempt, /unique|UNIQUE|duplicate/);
    assert.deepEqual(await counters('ws_held_fail'), []);
    // Outside a transaction nothing is held: each insert is its own statement.
    await holdInserts(db, () => insert(db, { workspace_id: 'ws_held_fail', window_start: 5, count: 5 }));
    assert.deepEqual(await counters('ws_held_fail'), [{ window_start: 5, count: 5 }]);
  });

  test('on PostgreSQL the held inserts are one statement', async (t) => {
    if (handle.store.dialect !== 'postgres') {
      t.skip('SQLite runs each insert as it is made (statements are calls into the process)');
      return;
    }
    const { db } = handle.store;
    // statement_timestamp() is the start of the statement that inserts the row: one value for one statement.
    await sql`create table held_probe (n integer primary key, at timestamptz not null default statement_timestamp())`.execute(
      db,
    );
    try {
      const insert = preparedInsert('held_probe' as never) as (
        d: typeof db,
        row: { n: number },
      ) => Promise<void>;
      const made = async (tx: typeof db, ns: number[]) => {
        for (const n of ns) {
          await insert(tx, { n });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      await db.transaction().execute((tx) => holdInserts(tx, () => made(tx, [1, 2, 3])));
      await db.transaction().execute((tx) => made(tx, [4, 5, 6]));
      const { rows } = await sql<{ n: number; at: Date }>`select n, at from held_probe order by n`.execute(
        db,
      );
      const starts = rows.map((r) => r.at.getTime());
      assert.equal(new Set(starts.slice(0, 3)).size, 1, 'held: one statement for the three rows');
      assert.equal(new Set(starts.slice(3)).size, 3, 'not held: a statement for each row');
    } finally {
      await sql`drop table held_probe`.execute(db);
    }
  });

  test('an input written into the SQL text instead of a parameter is refused when the plan is made', async () => {
    const bad = prepared((d, p: { name: string }) =>
      d.selectFrom('request_counters').select(sql.lit(p.name).as('x')),
    );
    await assert.rejects(bad(handle.store.db, { name: 'a' }), /an input was written into the SQL/);
  });
});

describe('SQLite statements prepared once', () => {
  test('the same text gives the same prepared statement; one used meanwhile stays, one unused goes first', () => {
    const database = cacheSqliteStatements(new SQLite(':memory:'));
    const hot = database.prepare('select 1 as one');
    const cold = database.prepare('select 2 as two');
    assert.equal(database.prepare('select 1 as one'), hot);
    const firsts: unknown[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const made = database.prepare(`select ${i} as n`);
      if (i < 10) firsts.push(made);
      assert.equal(database.prepare('select 1 as one'), hot, `kept while in use (after ${i + 1} others)`);
    }
    assert.notEqual(database.prepare('select 2 as two'), cold, 'evicted after 500 others');
    // Bounded: of 2,000 statements each made once, the first were let go and are made again.
    for (const [i, made] of firsts.entries())
      assert.notEqual(database.prepare(`select ${i} as n`), made, `select ${i}`);
    assert.deepEqual(database.prepare('select ? as v').get('a\u0000b'), { v: 'a\u0000b' });
    database.close();
  });

  // SQLite re-plans a statement on every call once a value is bound to a parameter its planner read (an
  // equality's, a LIMIT's or an OFFSET's), and better-sqlite3 re-binds on every call. `+?` is the same value
  // that the planner does not read. The cost is invisible to a test (no timing here); what a test can hold is
  // that the text is rewritten where it must be and nowhere else, and that rows and index use are unchanged.
  test('parameters the planner would read get a unary plus; quoted text and other parameters do not', () => {
    assert.equal(
      withStablePlan(
        'select "a" from "t" where "b" = ? and "c"=? and "d" > ? and "e" in (?, ?) limit ? offset ?',
      ),
      'select "a" from "t" where "b" = +? and "c"=+? and "d" > ? and "e" in (?, ?) limit +? offset +?',
    );
    assert.equal(
      withStablePlan('update "t" set "x" = ? where "y" is ?'),
      'update "t" set "x" = +? where "y" is +?',
    );
    // Inside quotes (a string, a name) nothing changes, even text that looks like a parameter.
    assert.equal(
      withStablePlan(`select 'a = ? it''s limit ?' as "b = ?", "this" from "t" where "x" <= ?`),
      `select 'a = ? it''s limit ?' as "b = ?", "this" from "t" where "x" <= +?`,
    );
    assert.equal(withStablePlan('insert into "t" ("a") values (?)'), 'insert into "t" ("a") values (?)');
  });

  test('a statement planned once gives the same rows for every kind of value, through the same index', () => {
    const database = cacheSqliteStatements(new SQLite(':memory:'));
    database.exec('create table t (k text, n integer, v); create index t_k_n on t (k, n)');
    const values = ['a\u0000b', "it's", 'x'.repeat(100_000), '\u{1F600}\u202E', null, 0, 1, -1, 2 ** 53, 1.5];
    const insert = database.prepare('insert into t (k, n, v) values (?, ?, ?)');
    for (const [i, v] of values.entries()) insert.run('k', i, v);
    insert.run('k', 100, Buffer.from([0, 1, 2]));
    const find = database.prepare(
      'select n, v from t where k = ? and v = ? order by n desc limit ? offset ?',
    );
    assert.match(find.source, /k = \+\? and v = \+\? order by n desc limit \+\? offset \+\?/);
    for (const [i, v] of values.entries()) {
      if (v === null) continue;
      assert.deepEqual(find.all('k', v, 1, 0), [{ n: i, v }], `value ${String(v).slice(0, 20)}`);
    }
    // NULL equals nothing, as with a plain parameter; a blob matches as a blob.
    assert.deepEqual(find.all('k', null, 10, 0), []);
    assert.deepEqual(find.all('k', Buffer.from([0, 1, 2]), 1, 0), [{ n: 100, v: Buffer.from([0, 1, 2]) }]);
    // A text parameter against an integer column compares as the column's affinity makes it, as before.
    assert.deepEqual(database.prepare('select v from t where k = ? and n = ?').all('k', '6'), [{ v: 1 }]);
    // LIMIT and OFFSET still take each call's value.
    const page = database.prepare('select n from t where k = ? order by n limit ? offset ?');
    assert.deepEqual(
      page.all('k', 2, 3).map((r) => (r as { n: number }).n),
      [3, 4],
    );
    assert.deepEqual(
      page.all('k', 1, 0).map((r) => (r as { n: number }).n),
      [0],
    );
    const plan = database.prepare(
      'explain query plan select n from t where k = ? and n = ? order by n desc limit ?',
    );
    assert.match(JSON.stringify(plan.all('k', 1, 1)), /USING COVERING INDEX t_k_n \(k=\? AND n=\?\)/);
    database.close();
  });
});
