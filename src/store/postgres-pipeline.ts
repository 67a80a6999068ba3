// PostgreSQL in pg's pipeline mode: a statement is written to the server as soon as it is made, without waiting
// for the answers of those before it. Statements that do not depend on each other's answers then cost one round
// trip together, and on a busy machine a round trip costs more than most statements (docs/benchmarks.md: the
// socket write, the wake-up of the server's process, pg's protocol work).
//
// Kysely runs a transaction's statements one after another, each waiting for the one before; the pipeline is used
// where that wait buys nothing:
// - BEGIN is written and not waited for: it goes out with the transaction's first statement.
// - `sendAhead(tx, query)`: a statement whose answer the transaction needs later or never (a lock, an insert) is
//   written at once; the next statement follows it without waiting. Its answer comes as a promise.
// - COMMIT follows the statements sent ahead without waiting for them, and the commit then waits for all of them:
//   it fails with the first failure among them. (After a failed statement PostgreSQL answers COMMIT with ROLLBACK,
//   which pg reports as a success; the commit checks its tag too.)
// The writes of one turn of the event loop go to the socket together (one system call).
// SQLite has no round trips: there `sendAhead` runs the statement in turn, like any other.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Db } from './database.js';

const ignore = () => {};

/** "current transaction is aborted, commands ignored until end of transaction block" */
const TRANSACTION_ABORTED = '25P02';

function resultOf<R>(answer: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = answer;
  const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { numAffectedRows: writes ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
}

/** One pooled pg client in pipeline mode, as Kysely's connection. */
export class PipelinedConnection implements DatabaseConnection {
  /** Written, and awaited by nobody but the end of the transaction: BEGIN and what was sent ahead. */
  #unsettled: Promise<unknown>[] = [];
  #corked = false;
  /** From BEGIN until COMMIT or ROLLBACK is written. */
  #inTransaction = false;

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const earlier = this.#unsettled.slice();
    try {
      return resultOf<R>(await this.client.query(query.sql, [...query.parameters]));
    } catch (err) {
      // A statement sent ahead failed first: that failure, not "the transaction is aborted", is the cause.
      if ((err as { code?: string }).code === TRANSACTION_ABORTED) {
        const first = (await Promise.allSettled(earlier)).find((o) => o.status === 'rejected');
        if (first) throw first.reason;
      }
      throw err;
    }
  }

  // biome-ignore lint/correctness/useYield: nothing to stream; the store never streams
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the PostgreSQL store does not stream query results');
  }

  /** Writes `query` now and returns its answer's promise; the transaction's end waits for it too. */
  sendAhead<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Written after the commit it would run outside the transaction: a caller that did not await `sendAhead`.
    if (!this.#inTransaction) throw new Error('a statement was sent ahead outside a transaction');
    this.#writeTogether();
    const answer = this.executeQuery<R>(query);
    // Settled by the transaction's end (or by the caller); never an unhandled rejection in between.
    answer.catch(ignore);
    this.#unsettled.push(answer);
    return answer;
  }

  begin(text: string): void {
    this.#inTransaction = true;
    this.#writeTogether();
    const begun = this.client.query(text);
    begun.catch(ignore);
    this.#unsettled.push(begun);
  }

  async commit(): Promise<void> {
    this.#inTransaction = false;
    this.#writeTogether();
    const commit = this.client.query('commit');
    const outcomes = await Promise.allSettled([...this.#take(), commit]);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    const { command } = (outcomes.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value;
    if (command !== 'COMMIT')
      throw new Error(`the transaction was not committed (PostgreSQL answered ${command})`);
  }

  async rollback(): Promise<void> {
    this.#inTransaction = false;
    const rollback = this.client.query('rollback');
    await Promise.allSettled(this.#take());
    await rollback;
  }

  #take(): Promise<unknown>[] {
    const taken = this.#unsettled;
    this.#unsettled = [];
    return taken;
  }

  /** Holds this turn's writes back and sends them together when the turn's promise jobs are done. */
  #writeTogether(): void {
    if (this.#corked) return;
    const stream = (this.client as unknown as { connection?: { stream?: NodeJS.WritableStream } }).connection
      ?.stream as (NodeJS.WritableStream & { cork?: () => void; uncork?: () => void }) | undefined;
    if (!stream?.cork || !stream.uncork) return;
    stream.cork();
    this.#corked = true;
    // A tick queued from a promise job runs once the promise jobs are drained: every statement this turn makes
    // (Kysely's steps between two statements are promise jobs) is written by then.
    process.nextTick(() => {
      this.#corked = false;
      stream.uncork?.();
    });
  }
}

/** Kysely's PostgreSQL driver, on pg's pool in pipeline mode, with BEGIN and COMMIT pipelined (above). */
export class PipelinedPostgresDriver implements Driver {
  readonly #connections = new WeakMap<pg.PoolClient, PipelinedConnection>();

  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<PipelinedConnection> {
    const client = await this.pool.connect();
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new PipelinedConnection(client);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = [
        'start transaction',
        settings.isolationLevel && `isolation level ${settings.isolationLevel}`,
        settings.accessMode,
      ]
        .filter(Boolean)
        .join(' ');
    }
    (connection as PipelinedConnection).begin(text);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).rollback();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PipelinedConnection).client.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

/** Kysely's PostgreSQL dialect with the pipelined driver. */
export class PipelinedPostgresDialect extends PostgresDialect {
  constructor(private readonly pgPool: pg.Pool) {
    super({ pool: pgPool });
  }
  override createDriver(): Driver {
    return new PipelinedPostgresDriver(this.pgPool);
  }
}

/** A statement sent ahead: written, its answer to come. (An object: a promise in it is not awaited with it.) */
export interface Ahead<R> {
  answer: Promise<QueryResult<R>>;
}

/**
 * Writes `query` in transaction `tx` without waiting for its answer (above). Resolves once it is written, with its
 * answer's promise, which may be left unawaited: the transaction's next statement follows it in the same round trip,
 * and its commit fails if it failed. Await it before the transaction's next step: the commit is written straight to
 * the connection, and would overtake a statement not yet written. Only for a PostgreSQL transaction.
 */
export async function sendAhead<R>(tx: Db, query: CompiledQuery): Promise<Ahead<R>> {
  let answer: Promise<QueryResult<R>> | undefined;
  // The consumer returns at once: the transaction's next statement is made without waiting for this answer.
  await tx.getExecutor().provideConnection(async (connection) => {
    if (!(connection instanceof PipelinedConnection))
      throw new Error('sendAhead needs a PostgreSQL transaction');
    answer = connection.sendAhead<R>(query);
  });
  return { answer: answer as Promise<QueryResult<R>> };
}
