// SQLite's group commit (src/store/sqlite-group-commit.ts): the writes of one turn of the event loop commit
// together, a request's transaction is a savepoint that fails alone, nothing is reported before it is durable,
// and a group that cannot commit is reported as lost (503), never as done. Seen from a second connection, as
// another process (the CLI, a second server) sees the file.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { openStore, type Store } from '../../src/store/database.js';
import { isDatabaseUnavailable } from '../../src/store/unavailable.js';
import { client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';

const SQLITE_ONLY = TEST_STORE !== 'sqlite' && 'SQLite only: PostgreSQL commits each transaction itself';

const counter = (ws: string, start = 1) => ({ workspace_id: ws, window_start: start, count: 1 });

describe('SQLite group commit', { skip: SQLITE_ONLY }, () => {
  let dir: string;
  let store: Store;
  let other: SQLite.Database;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pv-group-'));
    store = await openStore(`sqlite:${join(dir, 'g.db')}`);
    other = new SQLite(join(dir, 'g.db'), { readonly: true });
  });
  after(async () => {
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seen = (ws: string) =>
    (
      other.prepare('select count(*) as n from request_counters where workspace_id = ?').get(ws) as {
        n: number;
      }
    ).n;

  test('the writes of one turn commit together, after the turn; nothing waits when nothing was written', async () => {
    assert.equal(store.committed(), undefined, 'no group before any write');
    await store.db.selectFrom('workspaces').selectAll().execute();
    assert.equal(store.committed(), undefined, 'a read opens no group');
    await store.db.insertInto('request_counters').values(counter('ws_turn', 1)).execute();
    await store.db.insertInto('request_counters').values(counter('ws_turn', 2)).execute();
    assert.equal(seen('ws_turn'), 0, 'another connection sees nothing before the commit');
    const commit = store.committed();
    assert.ok(commit, 'the open group is waited for');
    assert.equal(store.committed(), commit, 'every waiter waits for the same commit');
    await commit;
    assert.equal(seen('ws_turn'), 2, 'both writes, in one commit');
    assert.equal(store.committed(), undefined);
  });

  test('a failed transaction rolls back only its own writes; the rest of the group commits', async () => {
    await store.db.insertInto('request_counters').values(counter('ws_a')).execute();
    await assert.rejects(
      store.db.transaction().execute(async (tx) => {
        await tx.insertInto('request_counters').values(counter('ws_b')).execute();
        throw new Error('the request failed');
      }),
      /the request failed/,
    );
    await store.db.transaction().execute(async (tx) => {
      await tx.insertInto('request_counters').values(counter('ws_c')).execute();
    });
    // A statement that fails outside a transaction undoes itself only (a duplicate key).
    await assert.rejects(store.db.insertInto('request_counters').values(counter('ws_a')).execute());
    await store.committed();
    assert.deepEqual([seen('ws_a'), seen('ws_b'), seen('ws_c')], [1, 0, 1]);
  });

  test('a serving process keeps its sub-journals in memory, and a request larger than 64 KiB still fails alone', async () => {
    const served = await openStore(`sqlite:${join(dir, 'served.db')}`);
    const watcher = () => new SQLite(join(dir, 'served.db'), { readonly: true });
    try {
      const tempStore = async () =>
        Number((await sql<{ temp_store: number }>`pragma temp_store`.execute(served.db)).rows[0]?.temp_store);
      assert.equal(await tempStore(), 0, "until it serves, SQLite's default (the CLI's large transactions)");
      served.serveInBackground();
      assert.equal(await tempStore(), 2, 'memory, once it serves');
      // A request that changes far more than 64 KiB of pages (its sub-journal would have spilled to a file) fails,
      // beside one that commits in the same group.
      const wide = 'x'.repeat(2000);
      const rows = (ws: string) =>
        Array.from({ length: 100 }, (_, i) => ({
          workspace_id: `${ws}_${i}_${wide}`,
          window_start: 1,
          count: 1,
        }));
      await served.db.insertInto('request_counters').values(rows('ws_kept')).execute();
      await assert.rejects(
        served.db.transaction().execute(async (tx) => {
          await tx.insertInto('request_counters').values(rows('ws_big')).execute();
          throw new Error('the large request failed');
        }),
        /the large request failed/,
      );
      await served.committed();
      const check = watcher();
      try {
        const count = (like: string) =>
          (
            check
              .prepare('select count(*) as n from request_counters where workspace_id like ?')
              .get(like) as { n: number }
          ).n;
        assert.deepEqual([count('ws_kept_%'), count('ws_big_%')], [100, 0]);
      } finally {
        check.close();
      }
    } finally {
      await served.close();
    }
  });

  test('concurrent transactions of one turn each commit or fail alone', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        store.db.transaction().execute(async (tx) => {
          await tx
            .insertInto('request_counters')
            .values(counter(`ws_many_${i}`))
            .execute();
          if (i % 3 === 0) throw new Error(`transaction ${i} fails`);
        }),
      ),
    );
    await store.committed();
    results.forEach((r, i) => {
      assert.equal(r.status, i % 3 === 0 ? 'rejected' : 'fulfilled');
      assert.equal(seen(`ws_many_${i}`), i % 3 === 0 ? 0 : 1, `transaction ${i}`);
    });
  });

  test('a group whose commit fails is lost whole, reported as unavailable, and the next group works', async () => {
    await store.db.insertInto('request_counters').values(counter('ws_lost_1')).execute();
    // A foreign key checked at commit: the COMMIT itself fails.
    await sql`pragma defer_foreign_keys = on`.execute(store.db);
    await store.db
      .insertInto('api_keys')
      .values({
        id: 'key_orphan',
        workspace_id: 'ws_does_not_exist',
        name: 'orphan',
        key_hash: 'h',
        prefix: 'pv_live_abcd',
        scopes: '[]',
        created_at: 1,
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        mode: 'live',
      })
      .execute();
    const commit = store.committed();
    await assert.rejects(commit as Promise<void>, (err) => {
      assert.ok(isDatabaseUnavailable(err), 'answered 503, as any database failure');
      return true;
    });
    assert.equal(seen('ws_lost_1'), 0, 'nothing of the lost group is kept');
    await store.db.insertInto('request_counters').values(counter('ws_after')).execute();
    await store.committed();
    assert.equal(seen('ws_after'), 1);
  });

  test('a read on the reader thread waits for the open group, so it sees a write made just before', async () => {
    await store.db.insertInto('request_counters').values(counter('ws_reader')).execute();
    const rows = await store.reader
      .selectFrom('request_counters')
      .select('workspace_id')
      .where('workspace_id', '=', 'ws_reader')
      .execute();
    assert.equal(rows.length, 1);
  });

  test('stores of one process on one file share its connection (no lock waited for in-process)', async () => {
    const second = await openStore(`sqlite:${join(dir, 'g.db')}`);
    await store.db.insertInto('request_counters').values(counter('ws_shared')).execute();
    const rows = await second.db
      .selectFrom('request_counters')
      .select('count')
      .where('workspace_id', '=', 'ws_shared')
      .execute();
    assert.equal(rows.length, 1, 'the second store reads the first one’s uncommitted write: one connection');
    await second.close();
    assert.equal(seen('ws_shared'), 1, 'closing commits what was written');
    await store.db.insertInto('request_counters').values(counter('ws_after_close')).execute();
    await store.committed();
    assert.equal(seen('ws_after_close'), 1, 'the first store goes on after the second closed');
  });
});

describe('answers wait for the commit', { skip: SQLITE_ONLY }, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('an answer leaves only after its writes are durable; a lost group answers 503, not 200', async () => {
    const { key } = await seedWorkspace(t.services);
    const lost = Object.assign(new Error('the database could not commit this write'), {
      code: 'SQLITE_IOERR_GROUP_COMMIT',
    });
    // The group is lost once; the 503 itself then finds nothing waiting, as after a real loss.
    let failures = 1;
    const committed = () => (failures-- > 0 ? Promise.reject(lost) : undefined);
    const app = await buildApp({ services: { ...t.services, committed } });
    try {
      const res = await client(app, key).ping();
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().code, 'unavailable');
    } finally {
      await app.close();
    }
    const ok = await client(t.app, key).ping();
    assert.equal(ok.statusCode, 200);
    assert.equal(t.store.committed(), undefined, 'answered after its request counter committed');
  });
});
