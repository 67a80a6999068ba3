// SQLite with group commit. A commit costs more than the statements it commits (the WAL frames of every page
// the transaction touched, the file locks), and most of a request's pages are the same as its neighbours'
// (the newest leaf of each index, the request counter). So every write made in one turn of the event loop,
// by any request, goes into one write transaction (BEGIN IMMEDIATE), committed when the turn ends
// (setImmediate). A request's own transaction is a savepoint inside it, so a failure rolls back only that
// request's work; a single statement outside a transaction is atomic on its own, as in autocommit.
//
// Nobody may learn of a write before it is durable: `committed()` is the promise of the open group's commit,
// and the HTTP layer answers no request while a group is open, nor does delivery hand a code to a carrier
// before its verification is committed. A group whose commit fails (disk full, I/O error) rejects that
// promise: every request that wrote (or read) in it answers 503 instead of reporting what was lost.
//
// Until `startGrouping()` (after the migrations, which take SQLite's write lock themselves), it behaves like
// Kysely's own SQLite driver: every statement and transaction commits on its own.
import type SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
} from 'kysely';

interface Group {
  promise: Promise<void> | undefined;
  resolve: () => void;
  reject: (err: Error) => void;
  /** A statement error ended SQLite's transaction under the group: its writes are gone. */
  lost: Error | undefined;
}

/** The failure every request of a lost group sees: a database error, so it is answered 503. */
function groupLost(cause: unknown): Error {
  const err = new Error('the database could not commit this write; nothing was kept', { cause });
  (err as Error & { code: string }).code = 'SQLITE_IOERR_GROUP_COMMIT';
  return err;
}

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

class Connection implements DatabaseConnection {
  constructor(
    private readonly database: SQLite.Database,
    private readonly driver: GroupCommitSqliteDriver,
  ) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return Promise.resolve(this.driver.run<R>(this.database, compiledQuery));
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query)) throw new Error('SQLite streams select queries only');
    const statement = this.database.prepare(compiledQuery.sql);
    for (const row of statement.iterate(compiledQuery.parameters as unknown[])) yield { rows: [row as R] };
  }
}

export class GroupCommitSqliteDriver implements Driver {
  readonly #database: SQLite.Database;
  readonly #connection: Connection;
  /** One connection: whoever holds it runs alone (a transaction holds it across its awaits). */
  #held = false;
  readonly #waiting: (() => void)[] = [];
  #grouping = false;
  #group: Group | undefined;
  /** A request's transaction is open inside the group: the group commits after it ends, never in its middle. */
  #inTransaction = false;
  #flushDue = false;
  /** Told each statement's duration in seconds (the metrics), once a serving process asks. */
  #observe: ((seconds: number) => void) | undefined;

  constructor(database: SQLite.Database) {
    this.#database = database;
    this.#connection = new Connection(database, this);
  }

  async init(): Promise<void> {}

  /** From now on, writes share a transaction per turn of the event loop. */
  startGrouping(): void {
    this.#grouping = true;
  }

  /**
   * Resolves once every write made so far is durable; rejects if the group holding them could not commit.
   * Undefined when nothing is waiting to commit (the common case for reads: no promise made).
   */
  committed(): Promise<void> | undefined {
    const group = this.#group;
    if (!group) return undefined;
    group.promise ??= new Promise<void>((resolve, reject) => {
      group.resolve = resolve;
      group.reject = reject;
    });
    return group.promise;
  }

  /** Commits the open group now, unless a transaction is in its middle; throws if the commit failed. */
  flush(): void {
    if (!this.#group || this.#inTransaction) return;
    const failure = this.#commit();
    if (failure) throw failure;
  }

  /**
   * Runs a statement at once where that is the same as waiting for the connection: inside the transaction that
   * holds it (`inTransaction`: a transaction's statements run only while it holds the one connection), or when
   * nobody holds it. Otherwise undefined: the caller queues for the connection as usual.
   */
  runNow<R>(inTransaction: boolean, query: CompiledQuery): QueryResult<R> | undefined {
    if (!inTransaction && this.#held) return undefined;
    return this.run<R>(this.#database, query);
  }

  /** From now on, each statement's duration in seconds goes to `observe`. */
  observeQueries(observe: (seconds: number) => void): void {
    this.#observe = observe;
  }

  run<R>(database: SQLite.Database, query: CompiledQuery): QueryResult<R> {
    const started = this.#observe ? performance.now() : 0;
    const statement = database.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (this.#grouping && !statement.readonly) this.#openGroup();
    try {
      if (statement.reader) return { rows: statement.all(parameters) as R[] };
      const { changes, lastInsertRowid } = statement.run(parameters);
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    } catch (err) {
      this.#checkGroup(err);
      throw err;
    } finally {
      this.#observe?.((performance.now() - started) / 1000);
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#held = true;
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }

  async beginTransaction(): Promise<void> {
    if (!this.#grouping) {
      this.#exec('begin');
      return;
    }
    this.#openGroup();
    this.#exec('savepoint pv_request');
    this.#inTransaction = true;
  }

  async commitTransaction(): Promise<void> {
    if (!this.#grouping) {
      this.#exec('commit');
      return;
    }
    this.#inTransaction = false;
    try {
      this.#exec('release pv_request');
    } catch (err) {
      this.#checkGroup(err);
      throw err;
    }
    if (this.#flushDue) this.#commit();
  }

  async rollbackTransaction(): Promise<void> {
    if (!this.#grouping) {
      this.#exec('rollback');
      return;
    }
    this.#inTransaction = false;
    // A statement error may have ended SQLite's transaction already (then the whole group is lost).
    if (this.#database.inTransaction) {
      this.#exec('rollback to pv_request');
      this.#exec('release pv_request');
    } else {
      this.#checkGroup(undefined);
    }
    if (this.#flushDue) this.#commit();
  }

  // Kysely's named savepoints inside a transaction (trx.savepoint(name)): plain SQLite savepoints.
  async savepoint(_c: DatabaseConnection, name: string): Promise<void> {
    this.#exec(`savepoint ${quoteName(name)}`);
  }

  async rollbackToSavepoint(_c: DatabaseConnection, name: string): Promise<void> {
    this.#exec(`rollback to ${quoteName(name)}`);
  }

  async releaseSavepoint(_c: DatabaseConnection, name: string): Promise<void> {
    this.#exec(`release ${quoteName(name)}`);
  }

  async destroy(): Promise<void> {
    this.flush();
    this.#database.close();
  }

  #exec(sql: string): void {
    this.#database.prepare(sql).run();
  }

  #openGroup(): void {
    if (this.#group) return;
    this.#exec('begin immediate');
    this.#group = {
      promise: undefined,
      resolve: () => {},
      reject: () => {},
      lost: undefined,
    };
    setImmediate(() => this.#turnEnded());
  }

  #turnEnded(): void {
    if (!this.#group) return;
    if (this.#inTransaction) this.#flushDue = true;
    else this.#commit();
  }

  /** After a failed statement: if SQLite ended the transaction, the group's writes are gone. */
  #checkGroup(err: unknown): void {
    const group = this.#group;
    if (group && !group.lost && !this.#database.inTransaction) group.lost = groupLost(err);
  }

  #commit(): Error | undefined {
    const group = this.#group;
    if (!group) return undefined;
    this.#group = undefined;
    this.#flushDue = false;
    let failure = group.lost;
    if (!failure) {
      try {
        this.#exec('commit');
      } catch (err) {
        failure = groupLost(err);
        if (this.#database.inTransaction) this.#exec('rollback');
      }
    }
    if (failure) {
      // Nobody may have been told of the group's writes: a caller that never asked still gets no unhandled error.
      group.promise?.catch(() => {});
      group.reject(failure);
    } else {
      group.resolve();
    }
    return failure;
  }
}
