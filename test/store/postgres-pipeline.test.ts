// PostgreSQL in pg's pipeline mode (src/store/postgres-pipeline.ts): BEGIN goes with the transaction's first
// statement, statements sent ahead go without waiting for their answers, and COMMIT follows them. None of it may
// change what a transaction means: what is sent ahead runs inside it, in order, is kept only if it commits, and a
// failure of it fails the transaction with its own error. SQLite has no round trips: nothing here applies there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../../src/store/database.js';
import { PipelinedConnection, sendAhead } from '../../src/store/postgres-pipeline.js';
import { prepared, preparedInsert } from '../../src/store/prepared.js';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';

const SQLITE = 'SQLite has no round trips: statements are calls into the process';

describe('PostgreSQL pipeline', { skip: TEST_STORE !== 'postgres' && SQLITE }, () => {
  let handle: TestStoreHandle;
  let db: Db;
  before(async () => {
    handle = await openTestStore();
    db = handle.store.db;
  });
  after(() => handle?.close());

  const insert = preparedInsert('request_counters');
  const counters = (ws: string) =>
    db
      .selectFrom('request_counters')
      .select(['window_start', 'count'])
      .where('workspace_id', '=', ws)
      .orderBy('window_start')
      .execute();
  const row = (ws: string, start: number, count = 1) => ({ workspace_id: ws, window_start: start, count });
  const insertAhead = (tx: Db, ws: string, start: number) =>
    sendAhead(
      tx,
      CompiledQuery.raw(
        'insert into request_counters (workspace_id, window_start, count) values ($1, $2, 1)',
        [ws, start],
      ),
    );

  test('statements sent ahead run inside the transaction, in order, and commit with it', async () => {
    const ws = `ws_ahead_${'é'.repeat(500)}\u0001'"`;
    const seen = await db.transaction().execute(async (tx) => {
      await insertAhead(tx, ws, 1);
      await insertAhead(tx, ws, 2);
      // A statement made after them sees them (they ran first, in this transaction).
      const { rows } = await tx.executeQuery<{ n: string }>(
        CompiledQuery.raw('select count(*) as n from request_counters where workspace_id = $1', [ws]),
      );
      await insertAhead(tx, ws, 3);
      // Returned without waiting for the last answer: the commit follows it, and waits for it.
      return Number(rows[0]?.n);
    });
    assert.equal(seen, 2);
    assert.deepEqual(await counters(ws), [
      { window_start: 1, count: 1 },
      { window_start: 2, count: 1 },
      { window_start: 3, count: 1 },
    ]);
  });

  test('a transaction that fails after sending ahead keeps nothing of what it sent', async () => {
    const ws = 'ws_ahead_rolled_back';
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await insertAhead(tx, ws, 1);
        throw new Error('the body fails');
      }),
      /the body fails/,
    );
    assert.deepEqual(await counters(ws), []);
  });

  test('a failed statement sent ahead fails the commit with its own error, and nothing is kept', async () => {
    const ws = 'ws_ahead_failed_commit';
    await insert(db, row(ws, 1));
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await insertAhead(tx, ws, 2);
        // The primary key again: refused. Nobody awaits its answer but the commit.
        await insertAhead(tx, ws, 1);
      }),
      (err: { code?: string }) => err.code === '23505',
    );
    assert.deepEqual(await counters(ws), [{ window_start: 1, count: 1 }]);
  });

  test('a statement after a failed one sent ahead fails with the first failure, not "transaction aborted"', async () => {
    const ws = 'ws_ahead_failed_next';
    await insert(db, row(ws, 1));
    const countOf = prepared((d, p: { ws: string }) =>
      d.selectFrom('request_counters').select(sql<number>`count(*)`.as('n')).where('workspace_id', '=', p.ws),
    );
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await insertAhead(tx, ws, 1);
        await countOf(tx, { ws });
      }),
      (err: { code?: string }) => err.code === '23505',
    );
    assert.deepEqual(await counters(ws), [{ window_start: 1, count: 1 }]);
    // The pool's connection is fine afterwards.
    await insert(db, row(ws, 2));
    assert.equal((await counters(ws)).length, 2);
  });

  test('a lock sent ahead is held to the commit: a second transaction waits for the first to commit', async () => {
    const ws = 'ws_ahead_lock';
    const key = 7_320_011;
    const lock = (tx: Db) =>
      sendAhead(tx, CompiledQuery.raw('select pg_advisory_xact_lock($1::bigint)', [key]));
    const order: string[] = [];
    let releaseFirst: () => void = () => {};
    const firstMayCommit = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = db.transaction().execute(async (tx) => {
      await (await lock(tx)).answer;
      await insertAhead(tx, ws, 1);
      order.push('first locked');
      await firstMayCommit;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = db.transaction().execute(async (tx) => {
      await lock(tx);
      // The read after the lock (pipelined behind it) sees what the first committed while it waited.
      const { rows } = await tx.executeQuery<{ n: string }>(
        CompiledQuery.raw('select count(*) as n from request_counters where workspace_id = $1', [ws]),
      );
      order.push(`second read ${rows[0]?.n}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(order, ['first locked'], 'the second waits for the lock');
    releaseFirst();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first locked', 'second read 1']);
  });

  test('BEGIN, the statements sent ahead and COMMIT leave in one write to the socket', async () => {
    const ws = 'ws_ahead_one_write';
    let writes = 0;
    await db.transaction().execute(async (tx) => {
      // The socket of this transaction's connection, its writes counted from here on (BEGIN is still held back).
      await tx.getExecutor().provideConnection(async (connection) => {
        assert.ok(connection instanceof PipelinedConnection);
        const stream = (connection.client as unknown as { connection: { stream: NodeJS.WritableStream } })
          .connection.stream as NodeJS.WritableStream & {
          _writev?: (...args: unknown[]) => unknown;
          _write: (...args: unknown[]) => unknown;
        };
        for (const method of ['_write', '_writev'] as const) {
          const original = stream[method];
          if (!original) continue;
          stream[method] = (...args: unknown[]) => {
            writes += 1;
            return original.apply(stream, args);
          };
          after(() => {
            stream[method] = original;
          });
        }
      });
      await sendAhead(tx, CompiledQuery.raw('select pg_advisory_xact_lock($1::bigint)', [7_320_012]));
      await insertAhead(tx, ws, 1);
    });
    assert.equal(writes, 1, 'BEGIN, lock, insert and COMMIT in one write');
    assert.deepEqual(await counters(ws), [{ window_start: 1, count: 1 }]);
  });

  test('a statement not written before the commit is refused, never run on its own', async () => {
    const ws = 'ws_ahead_late';
    let late: Promise<unknown> | undefined;
    await db.transaction().execute(async (tx) => {
      // A statement in flight that nobody awaits: the next one waits for its answer to be written, and the body
      // returns first, so the commit is written before it (a caller that does not await `sendAhead`).
      void tx.executeQuery(CompiledQuery.raw('select pg_sleep(0.05)')).catch(() => {});
      late = insertAhead(tx, ws, 1);
      late.catch(() => {});
    });
    // Refused by the connection (written after its COMMIT) or by Kysely (the transaction is over), whichever sees
    // it first: either way it never runs.
    await assert.rejects(late as Promise<unknown>, /outside a transaction|already committed/);
    assert.deepEqual(await counters(ws), []);
    // Kysely itself refuses a finished transaction.
    await assert.rejects(
      db
        .transaction()
        .execute(async (tx) => tx)
        .then((tx) => insertAhead(tx, ws, 2)),
      /already committed/,
    );
  });
});
