// Statements of concurrent requests, together. Where many requests make the same statement with their own values
// (the admission of their keys, the read of their verification or of their workspace's senders), each one's round
// trip and each statement's fixed cost in both processes are most of its cost. Here the requests that arrive while
// a batch is under way wait for the next one, and those of one turn of the event loop start the first: one
// statement answers them all.
//
// A caller waits at most one turn of the event loop (setImmediate) more than alone, or for one batch under way
// to finish. A batch fails or succeeds whole, and each of its callers gets its outcome.
import type { Db } from './database.js';
import { dialectOf } from './prepared.js';

/** Inputs in one batch at most (PostgreSQL's arrays are parameters: no SQL grows with the batch). */
const MAX_BATCH = 256;
/**
 * Batches under way at once per database, by default: one fills while another runs, and the pool keeps room for the
 * rest. A batch that holds row locks over several round trips may take one at a time (`inFlight`).
 */
const MAX_IN_FLIGHT = 2;

/** Runs a batch: one answer for each of its inputs, in their order. */
export type RunBatch<I, O> = (db: Db, batch: readonly I[]) => Promise<readonly O[]>;

interface Pending<I, O> {
  input: I;
  resolve: (answer: O) => void;
  reject: (err: unknown) => void;
}

function createBatcher<I, O>(
  db: Db,
  runBatch: RunBatch<I, O>,
  inFlightAtMost: number,
): (input: I) => Promise<O> {
  let queue: Pending<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function run(batch: Pending<I, O>[]): Promise<void> {
    try {
      const answers = await runBatch(
        db,
        batch.map((b) => b.input),
      );
      if (answers.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} got ${answers.length} answers`);
      }
      for (const [i, b] of batch.entries()) b.resolve(answers[i] as O);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < inFlightAtMost && queue.length > 0) {
      const batch = queue.length <= MAX_BATCH ? queue : queue.slice(0, MAX_BATCH);
      queue = queue.length <= MAX_BATCH ? [] : queue.slice(MAX_BATCH);
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || inFlight >= inFlightAtMost || queue.length === 0) return;
    scheduled = true;
    // The rest of this turn's callers join the batch first.
    setImmediate(flush);
  }

  return (input) =>
    new Promise((resolve, reject) => {
      queue.push({ input, resolve, reject });
      schedule();
    });
}

/**
 * `runBatch`, shared by the concurrent callers of one database: each database (never a transaction, which a batch
 * would share with strangers) keeps a queue of its own, and each call resolves to its own input's answer.
 */
export function turnBatched<I, O>(
  runBatch: RunBatch<I, O>,
  { inFlight = MAX_IN_FLIGHT }: { inFlight?: number } = {},
): (db: Db, input: I) => Promise<O> {
  const batchers = new WeakMap<Db, (input: I) => Promise<O>>();
  return (db, input) => {
    if (db.isTransaction) throw new Error('a turn batch never runs inside a transaction');
    let batcher = batchers.get(db);
    if (!batcher) {
      batcher = createBatcher(db, runBatch, inFlight);
      batchers.set(db, batcher);
    }
    return batcher(input);
  };
}

/**
 * Whether statements on `db` go through a turn's batch (`readByKey`, a check's judgement): on PostgreSQL outside a
 * transaction. SQLite has no round trip to share (a statement runs at once on the serving thread), and a
 * transaction's statements are its own.
 */
export const batchesInTurn = (db: Db): boolean => !db.isTransaction && dialectOf(db) === 'postgres';

/**
 * A read by one key through a turn's batch: `read` is one statement for a batch's distinct keys (`= any($1)` on
 * PostgreSQL), and each caller gets the rows whose `keyOf` is its own key, in the statement's order, as an array
 * of its own.
 */
export function readByKey<R>(
  read: (db: Db, inputs: { keys: string[] }) => Promise<{ rows: R[] }>,
  keyOf: (row: R) => string,
): (db: Db, key: string) => Promise<R[]> {
  return turnBatched(async (db, batch: readonly string[]) => {
    const { rows } = await read(db, { keys: [...new Set(batch)] });
    const byKey = new Map<string, R[]>();
    for (const row of rows) {
      const rowsOfKey = byKey.get(keyOf(row));
      if (rowsOfKey) rowsOfKey.push(row);
      else byKey.set(keyOf(row), [row]);
    }
    return batch.map((key) => [...(byKey.get(key) ?? [])]);
  });
}
