// The turn batcher (src/store/turn-batch.ts) on its own, with a runner that records its batches: the calls of one
// turn are one batch; calls made while batches are under way wait for the next; at most two batches run at once
// and at most 256 inputs go in one; each caller gets its own input's answer; a failed batch rejects its own
// callers only, and so does a runner that answers the wrong number; each database has its own queue; and no batch
// runs inside a transaction. A read by key (`readByKey`) reads a batch's distinct keys once and hands each caller
// its own key's rows, in an array of its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Db } from '../../src/store/database.js';
import { readByKey, turnBatched } from '../../src/store/turn-batch.js';

const database = (): Db => ({ isTransaction: false }) as Db;

/** A runner that records each batch and answers each input doubled, once `release` is called for the batch. */
function recordingRunner() {
  const batches: number[][] = [];
  const waiting: (() => void)[] = [];
  let running = 0;
  let mostRunning = 0;
  const run = async (_db: Db, batch: readonly number[]): Promise<number[]> => {
    batches.push([...batch]);
    running++;
    mostRunning = Math.max(mostRunning, running);
    await new Promise<void>((resolve) => waiting.push(resolve));
    running--;
    if (batch.includes(-1)) throw new Error('batch failed');
    return batch.map((n) => n * 2);
  };
  return {
    run,
    batches,
    mostRunning: () => mostRunning,
    /** Lets every batch waiting so far answer. */
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Releases batches until `all` settles. */
async function drain<T>(runner: ReturnType<typeof recordingRunner>, all: Promise<T>): Promise<T> {
  let done = false;
  void all.finally(() => {
    done = true;
  });
  while (!done) {
    await turn();
    runner.releaseAll();
  }
  return all;
}

describe('turn batcher', () => {
  test("the calls of one turn are one batch, and each caller gets its own input's answer", async () => {
    const runner = recordingRunner();
    const batched = turnBatched(runner.run);
    const db = database();
    const answers = drain(runner, Promise.all([1, 2, 3, 4, 5].map((n) => batched(db, n))));
    assert.deepEqual(await answers, [2, 4, 6, 8, 10]);
    assert.deepEqual(runner.batches, [[1, 2, 3, 4, 5]]);
  });

  test('calls made while two batches run wait for the next batch, together', async () => {
    const runner = recordingRunner();
    const batched = turnBatched(runner.run);
    const db = database();
    const first = batched(db, 1);
    await turn();
    const second = batched(db, 2);
    await turn();
    // Two batches are under way now: the third turn's calls queue.
    const later = [3, 4, 5].map((n) => batched(db, n));
    await turn();
    assert.deepEqual(runner.batches, [[1], [2]]);
    const all = await drain(runner, Promise.all([first, second, ...later]));
    assert.deepEqual(all, [2, 4, 6, 8, 10]);
    assert.deepEqual(runner.batches, [[1], [2], [3, 4, 5]]);
    assert.equal(runner.mostRunning(), 2);
  });

  test('a batcher of one batch at a time: calls made while it runs wait for the next batch, together', async () => {
    const runner = recordingRunner();
    const batched = turnBatched(runner.run, { inFlight: 1 });
    const db = database();
    const first = batched(db, 1);
    await turn();
    // One batch is under way: the next turns' calls queue behind it.
    const later = [2, 3].map((n) => batched(db, n));
    await turn();
    const last = batched(db, 4);
    await turn();
    assert.deepEqual(runner.batches, [[1]]);
    const all = await drain(runner, Promise.all([first, ...later, last]));
    assert.deepEqual(all, [2, 4, 6, 8]);
    assert.deepEqual(runner.batches, [[1], [2, 3, 4]]);
    assert.equal(runner.mostRunning(), 1);
  });

  test('600 calls in one turn go as batches of 256 at most, two at a time', async () => {
    const runner = recordingRunner();
    const batched = turnBatched(runner.run);
    const db = database();
    const inputs = Array.from({ length: 600 }, (_, i) => i);
    const answers = await drain(runner, Promise.all(inputs.map((n) => batched(db, n))));
    assert.deepEqual(
      answers,
      inputs.map((n) => n * 2),
    );
    assert.deepEqual(
      runner.batches.map((b) => b.length),
      [256, 256, 88],
    );
    assert.deepEqual(runner.batches.flat(), inputs);
    assert.equal(runner.mostRunning(), 2);
  });

  test("a failed batch rejects its own callers, and the next batch's callers get their answers", async () => {
    const runner = recordingRunner();
    const batched = turnBatched(runner.run);
    const db = database();
    const failing = [batched(db, 1), batched(db, -1)];
    await turn();
    const next = batched(db, 7);
    const settled = await drain(runner, Promise.allSettled([...failing, next]));
    assert.deepEqual(
      settled.map((s) => s.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    assert.equal((settled[0] as PromiseRejectedResult).reason.message, 'batch failed');
    assert.equal((settled[2] as PromiseFulfilledResult<number>).value, 14);
  });

  test('a runner that answers a batch with the wrong number of answers fails that batch, never misassigns', async () => {
    const batched = turnBatched(async (_db: Db, batch: readonly number[]) => batch.slice(1));
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batched(database(), n)));
    // Each call above named a database of its own: three batches of one, each answered with nothing.
    for (const s of settled) {
      assert.equal(s.status, 'rejected');
      assert.match((s as PromiseRejectedResult).reason.message, /a batch of 1 got 0 answers/);
    }
  });

  test('each database has a queue of its own: calls on two databases never share a batch', async () => {
    const runner = recordingRunner();
    const batched = turnBatched(runner.run);
    const one = database();
    const other = database();
    const answers = drain(runner, Promise.all([batched(one, 1), batched(other, 2), batched(one, 3)]));
    assert.deepEqual(await answers, [2, 4, 6]);
    assert.deepEqual(
      runner.batches.sort((a, b) => a.length - b.length),
      [[2], [1, 3]],
    );
  });

  test('inside a transaction a batch is refused: it would share the transaction with strangers', () => {
    const batched = turnBatched(async (_db: Db, batch: readonly number[]) => batch);
    assert.throws(() => batched({ isTransaction: true } as Db, 1), /never runs inside a transaction/);
  });

  test("readByKey: one read of the batch's distinct keys; each caller gets its key's rows, in an array of its own", async () => {
    const reads: string[][] = [];
    const rows = [
      { key: 'a', n: 1 },
      { key: 'b', n: 2 },
      { key: 'a', n: 3 },
      { key: 'x', n: 4 },
    ];
    const read = readByKey(
      async (_db: Db, { keys }: { keys: string[] }) => {
        reads.push(keys);
        return { rows: rows.filter((row) => keys.includes(row.key)) };
      },
      (row) => row.key,
    );
    const db = database();
    const [a1, b, a2, none] = await Promise.all([read(db, 'a'), read(db, 'b'), read(db, 'a'), read(db, 'z')]);
    assert.deepEqual(reads, [['a', 'b', 'z']]);
    assert.deepEqual(a1, [rows[0], rows[2]]);
    assert.deepEqual(a2, [rows[0], rows[2]]);
    assert.deepEqual(b, [rows[1]]);
    assert.deepEqual(none, []);
    // Each caller may sort or change its array without touching another's.
    assert.notEqual(a1, a2);
    a1?.reverse();
    assert.deepEqual(a2, [rows[0], rows[2]]);
  });
});
