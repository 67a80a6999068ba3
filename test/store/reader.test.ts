// Heavy reads off the request path (src/store/read-worker.ts): the dashboard's read-models read through the store's
// reader, which on SQLite runs each query on a thread of its own, so the serving thread goes on answering while
// a long one runs; on PostgreSQL it is the store's database (the query runs in the server). Either way it sees
// every committed write, and it only reads.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';

describe(`the store's reader (${TEST_STORE})`, () => {
  let handle: TestStoreHandle;
  before(async () => {
    handle = await openTestStore();
  });
  after(() => handle.close());

  test('sees what the serving connection committed, with parameters of every kind', async () => {
    const { db, reader } = handle.store;
    const odd = `ws_'"\u00e9\u{1F600}${'x'.repeat(5000)}`;
    await db
      .insertInto('request_counters')
      .values({ workspace_id: odd, window_start: 42, count: 7 })
      .execute();
    const rows = await reader
      .selectFrom('request_counters')
      .select(['workspace_id', 'count'])
      .where('workspace_id', '=', odd)
      .where('window_start', '=', 42)
      .execute();
    assert.deepEqual(rows, [{ workspace_id: odd, count: 7 }]);
  });

  test('a failing query rejects with the database’s reason and the reader goes on working', async () => {
    const { reader } = handle.store;
    await assert.rejects(sql`select * from no_such_table`.execute(reader), /no_such_table/);
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(reader);
    assert.equal(Number(rows[0]?.one), 1);
  });

  test('on SQLite a long query runs off the serving thread: its event loop turns while the query runs', {
    skip: TEST_STORE !== 'sqlite' && 'PostgreSQL runs queries in the server already',
  }, async () => {
    const { reader } = handle.store;
    let turns = 0;
    let running = true;
    const turn = () => {
      turns += 1;
      if (running) setImmediate(turn);
    };
    setImmediate(turn);
    const started = turns;
    // About a second of work for SQLite: on the serving thread no turn could happen until it returned.
    const query = sql<{ n: number }>`
        with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000)
        select count(*) as n from c`.execute(reader);
    // Stopped however the query ends, so a failure cannot leave the loop turning.
    const { rows } = await query.finally(() => {
      running = false;
    });
    assert.equal(Number(rows[0]?.n), 3_000_000);
    assert.ok(turns - started > 1, `the serving thread turned ${turns - started} times meanwhile`);
  });

  test('on SQLite the reader refuses writes', {
    skip: TEST_STORE !== 'sqlite' && 'SQLite only',
  }, async () => {
    await assert.rejects(
      handle.store.reader
        .insertInto('request_counters')
        .values({ workspace_id: 'w', window_start: 1, count: 1 })
        .execute(),
      /reads only|readonly/i,
    );
  });
});
