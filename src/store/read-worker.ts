// Heavy reads off the request path, on SQLite. better-sqlite3 is synchronous: a 700 ms query on the serving
// thread holds every API request for 700 ms. The reader is a Kysely database whose queries run on a worker
// thread with its own read-only connection; the dashboard's read-models use it. It sees
// every committed write (WAL). On PostgreSQL the queries already run in the database server, so the reader is
// the store's own database there.
//
// The same thread copies the write-ahead log back into the database file (a passive checkpoint) every so
// often, on a connection of its own, and syncs the file after it: done on the serving thread, a checkpoint holds
// every request while it copies and syncs (tens of milliseconds for SQLite's default 4 MB of log). The serving
// connection's own automatic checkpoint, the one that lets the log start again from its beginning, then finds the
// log nearly all copied and the file nearly all synced (store/sqlite.ts).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { withStablePlan } from './statement-cache.js';
import type { Database } from './tables.js';

type Reply = { id: number; rows?: unknown[]; error?: string };

/**
 * The thread: its own read-only connection to the file, statements prepared once. Plain JavaScript run by the
 * Worker itself (eval), so it is the same under the TypeScript test runner and the built service. Messages in:
 * { id, sql, parameters }; out: { id, rows } or { id, error }.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const database = new SQLite(workerData.path, { readonly: true, fileMustExist: true });
database.pragma('busy_timeout = 5000');
// A small page cache: its reads are scans and aggregates, and every MB here is resident memory of the service.
database.pragma('cache_size = -4000');
const statements = new Map();
let checkpoints;
parentPort.on('message', ({ id, sql, parameters, checkpointEveryMs }) => {
  if (checkpointEveryMs !== undefined) {
    if (checkpoints) return;
    // Never waits for a lock: PASSIVE copies what no reader still needs, and never blocks a writer.
    const writer = new SQLite(workerData.path, { fileMustExist: true });
    // The database file synced after each copy that did something, here: the serving connection's own checkpoint
    // (the one that lets the log start again from its beginning) then finds little of the file left to sync.
    // Opened for each sync and closed after it: a descriptor belongs to the process, and would outlive this thread.
    const fs = require('node:fs');
    const syncFile = () => {
      const fd = fs.openSync(workerData.path, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    };
    let copied = 0;
    checkpoints = setInterval(() => {
      try {
        const [{ checkpointed }] = writer.pragma('wal_checkpoint(PASSIVE)');
        if (checkpointed > 0 && checkpointed !== copied) syncFile();
        copied = checkpointed;
      } catch {
        // A busy or failing checkpoint is tried again at the next tick; the serving connection's own remains.
      }
    }, checkpointEveryMs);
    return;
  }
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      if (statements.size >= 200) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    if (!statement.reader) throw new Error('the reader runs reads only');
    parentPort.postMessage({ id, rows: statement.all(...parameters) });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

/** better-sqlite3 as this module resolves it: the thread loads the very same build. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

function startWorker(path: string): Worker {
  // A small heap: the thread holds one query's rows at a time (a page of the log, an overview's buckets).
  return new Worker(THREAD, {
    eval: true,
    workerData: { path, driver: DRIVER },
    resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 },
  });
}

class WorkerReadDriver implements Driver {
  #worker: Worker | undefined;
  #checkpointEveryMs: number | undefined;
  #next = 0;
  readonly #waiting = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();

  constructor(
    private readonly path: string,
    private readonly committed: () => Promise<void> | undefined,
  ) {}

  async init(): Promise<void> {
    // The checkpoints may have started the thread already (a serving store starts them before its first query):
    // a second one would be a second connection and heap, checkpointing too, and never ended.
    this.#worker ??= this.#start();
  }

  #start(): Worker {
    const worker = startWorker(this.path);
    // Idle, the thread keeps no process alive; while a query waits on it, it does.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.#waiting.get(reply.id);
      if (!waiter) return;
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) worker.unref();
      if (reply.error !== undefined) waiter.reject(new Error(reply.error));
      else waiter.resolve(reply.rows ?? []);
    });
    // A dead thread fails what waits on it; the next query starts another.
    const fail = (err: Error) => {
      for (const waiter of this.#waiting.values()) waiter.reject(err);
      this.#waiting.clear();
      this.#worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the reader thread exited (${code})`)));
    this.#worker = worker;
    if (this.#checkpointEveryMs !== undefined)
      worker.postMessage({ checkpointEveryMs: this.#checkpointEveryMs });
    return worker;
  }

  /** From now on the thread checkpoints every `ms` (a thread started again later does too). */
  checkpointEvery(ms: number): void {
    this.#checkpointEveryMs = ms;
    (this.#worker ?? this.#start()).postMessage({ checkpointEveryMs: ms });
  }

  #run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    const worker = this.#worker ?? this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, sql, parameters });
    });
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        // The thread's connection sees committed writes only: a read waits for this process's open group, so it
        // sees every write made before it, as a read on the serving connection would.
        await this.committed();
        // Planned once on the thread, as on the serving connection (statement-cache.ts).
        return { rows: (await this.#run(withStablePlan(query.sql), query.parameters)) as R[] };
      },
      streamQuery: () => {
        throw new Error('the reader does not stream');
      },
    };
  }

  async beginTransaction(): Promise<void> {
    throw new Error('the reader runs reads only, outside transactions');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}

/**
 * A Kysely database whose queries run on a reader thread over the SQLite file at `path`; `committed` is the
 * serving connection's commit of its open group (each read waits for it).
 */
export interface SqliteReader {
  db: Kysely<Database>;
  checkpointEvery(ms: number): void;
  /** Ends the thread, whether a query or the checkpoints started it. */
  destroy(): Promise<void>;
}

export function openSqliteReader(path: string, committed: () => Promise<void> | undefined): SqliteReader {
  const driver = new WorkerReadDriver(path, committed);
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return {
    db,
    checkpointEvery: (ms) => driver.checkpointEvery(ms),
    // Kysely destroys a driver only if a query initialised it; checkpoints alone start the thread too.
    destroy: async () => {
      await db.destroy();
      await driver.destroy();
    },
  };
}
