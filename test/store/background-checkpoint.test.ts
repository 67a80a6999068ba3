// A serving process copies SQLite's write-ahead log back into the database file from its reader thread, so that the
// serving connection's own checkpoint (at 40,000 pages of log) finds little left to copy and sync on the thread that
// answers requests (src/store/read-worker.ts). Read here from the log's shared index (the -shm file), as SQLite
// keeps it: how many frames the log holds (`mxFrame`) and how many of them are copied back (`nBackfill`). The
// writes here are a few dozen pages, far below the serving connection's own threshold, so whatever is copied back
// was copied by the reader thread. A store that does not serve copies nothing back until the threshold.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.js';
import { TEST_STORE } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';

const SQLITE_ONLY = TEST_STORE !== 'sqlite' && 'SQLite only: PostgreSQL keeps its own log';

/** The log's frames and those copied back, from the shared index's first header and its checkpoint record. */
function logState(path: string): { frames: number; copied: number } {
  const index = readFileSync(`${path}-shm`);
  return { frames: index.readUInt32LE(16), copied: index.readUInt32LE(96) };
}

describe('the log copied back from the reader thread', { skip: SQLITE_ONLY }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-checkpoint-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function opened(name: string, serving: boolean): Promise<{ store: Store; path: string }> {
    const path = join(dir, `${name}.db`);
    const store = await openStore({ url: `sqlite:${path}`, dataDir: dir });
    // As the serving process does: at once, before any write of its own.
    if (serving) store.serveInBackground();
    await sql`create table probe (n integer primary key, body text not null)`.execute(store.db);
    return { store, path };
  }

  /** Commits of a few pages each, as requests make them. */
  async function write(store: Store, commits: number): Promise<void> {
    for (let n = 0; n < commits; n++) {
      await sql`insert into probe (body) values (${'x'.repeat(3000)})`.execute(store.db);
      await store.committed();
    }
  }

  test('a serving store: what is committed is copied back within moments, by the reader thread', async () => {
    const { store, path } = await opened('serving', true);
    try {
      await write(store, 40);
      const { frames } = logState(path);
      assert.ok(
        frames > 0 && frames < 10_000,
        `${frames} frames: below the serving connection's own threshold`,
      );
      const copied = await eventually('the log copied back', () => {
        const state = logState(path);
        return state.copied >= frames && state;
      });
      assert.ok(copied.copied >= frames);
      // Again after more commits (the log, all copied back, may have started again from its beginning): the
      // copying goes on.
      await write(store, 40);
      const more = logState(path);
      assert.ok(more.frames > 0);
      await eventually('the new frames copied back', () => logState(path).copied >= more.frames);
    } finally {
      await store.close();
    }
  });

  test('a store that does not serve (the CLI) copies nothing back below the threshold', async () => {
    const { store, path } = await opened('cli', false);
    try {
      await write(store, 40);
      // Not a wait for something to happen: a showing that it does not, over many of the reader's periods.
      await sleep(500);
      const { frames, copied } = logState(path);
      assert.ok(frames > 0);
      assert.equal(copied, 0);
    } finally {
      await store.close();
    }
  });

  test('one thread checkpoints and reads: the first query of a serving store runs on the thread its checkpoints started', {
    skip: !existsSync('/proc/self/task') && 'threads counted from /proc (Linux)',
  }, async () => {
    // The process's threads, from /proc (Node 24 names a worker's thread, Node 22 does not: all are counted). Before
    // the fix, the reader's first query started a second thread (its own connection and heap, checkpointing too)
    // and left the first running until the process ended.
    const threads = () => readdirSync('/proc/self/task').length;
    await stat(dir); // libuv's pool started (its threads come with its first use), so that it is not counted below
    const before = threads();
    const { store } = await opened('one-thread', true);
    const withCheckpoints = threads();
    try {
      assert.equal(withCheckpoints - before, 1, 'the checkpoints started one thread');
      await write(store, 5);
      const { rows } = await sql<{ n: number }>`select count(*) as n from probe`.execute(store.reader);
      assert.equal(Number(rows[0]?.n), 5);
      assert.equal(threads(), withCheckpoints, 'the first query ran on that thread');
    } finally {
      await store.close();
    }
    await eventually('the reader thread ended with the store', () => threads() === before);
  });
});
