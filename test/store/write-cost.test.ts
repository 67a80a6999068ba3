// What a send writes, trimmed to what is read (migrations 0020 to 0022). A commit writes each page it changed, and
// a send changed one or more pages of every B-tree it wrote to: 27.5 pages a send on SQLite, among them a timeline
// kept in three B-trees, an index of an expression that only a Twilio SID look-up read, and a table kept in two
// B-trees where one would do (docs/benchmarks.md).
// Proven here: each read of those tables still goes through an index in its order, on both stores; what each
// table is written to now; events of one verification at the same stamp from two processes do not clash; a SID
// finds its verification among neighbours whose ids differ in the last character it stands for; and the
// migrations keep every row, up and down.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Compilable, sql } from 'kysely';
import { othersQuery } from '../../src/fraud/repository.js';
import type { Db } from '../../src/store/database.js';
import { migratorFor } from '../../src/store/migrate.js';
import { dialectOf } from '../../src/store/prepared.js';
import type { WorkspacesTable } from '../../src/store/tables.js';
import { eventsQuery } from '../../src/timeline/timeline.js';
import { idPrefixOfSid, verificationSid } from '../../src/twilio-api/sids.js';
import { findIdByPrefix, idPrefixQuery, supersedeWhere } from '../../src/verification/repository.js';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';
import { databaseUrlFor, dropDatabase, ensureDatabase, openPlainDatabase } from '../helpers/database.js';
import { indexesOf, planOf, WHOLE_OR_SORTED } from '../helpers/plans.js';
import { verificationRow } from '../helpers/verification-rows.js';

const WS = 'ws_writecost';

describe("a send's tables are read through their indexes, and written to no more than that (0020-0022)", () => {
  let handle: TestStoreHandle;
  let db: Db;
  let sqlite: boolean;
  before(async () => {
    handle = await openTestStore();
    db = handle.store.db;
    sqlite = dialectOf(db) === 'sqlite';
    await db
      .insertInto('workspaces')
      .values({
        id: WS,
        name: 'Write cost',
        allowed_countries: null,
        send_limit: 5,
        send_window_seconds: 600,
        request_limit_per_minute: 6000,
        created_at: 1,
        updated_at: 1,
      } as WorkspacesTable)
      .execute();
  });
  after(() => handle.close());

  /** Each read: what it is, the index its plan must name on each store, and the statement as the service makes it. */
  const reads: {
    name: string;
    index: { sqlite: RegExp; postgres: RegExp };
    query: (db: Db) => Compilable;
  }[] = [
    {
      name: "a verification's timeline: the table's key, in its order",
      index: {
        sqlite: /verification_events USING PRIMARY KEY \(verification_id=\?\)/,
        postgres: /verification_events_pkey/,
      },
      query: (db) => eventsQuery(db, WS, 'ver_x'),
    },
    {
      name: "a Twilio SID's verification: a range of the key on SQLite, the expression index on PostgreSQL",
      index: {
        sqlite: /sqlite_autoindex_verifications_1 \(id>\? AND id<\?\)/,
        postgres: /verifications_sid_prefix/,
      },
      query: (db) => idPrefixQuery(db, { workspaceId: WS, prefix: 'A'.repeat(21), mode: 'live' }),
    },
    {
      name: "the pumping guard's count of a range: its window index, without the table on SQLite",
      index: {
        sqlite:
          /COVERING INDEX fraud_range_numbers_window \(workspace_id=\? AND range_prefix=\? AND last_sent_at>\?\)/,
        postgres: /fraud_range_numbers_window/,
      },
      query: (db) => othersQuery(db, { workspaceId: WS, range: '+6149157', phone: '+61491570156', since: 0 }),
    },
    {
      name: "a send's supersede: still the number's partial index of its pending code",
      index: {
        sqlite: /verifications_one_pending_per_mode \(workspace_id=\? AND phone=\? AND mode=\?\)/,
        postgres: /verifications_one_pending_per_mode/,
      },
      query: (db) => supersedeWhere(db, { workspaceId: WS, phone: '+61491570156', now: 0, mode: 'live' }),
    },
  ];
  for (const read of reads) {
    test(read.name, async () => {
      const plan = await planOf(db, read.query(db));
      assert.match(plan, sqlite ? read.index.sqlite : read.index.postgres, plan);
      assert.doesNotMatch(plan, WHOLE_OR_SORTED, plan);
    });
  }

  test('what each table is written to: its key and these indexes', async () => {
    const key = (name: string) => (sqlite ? [] : [name]);
    assert.deepEqual(await indexesOf(db, 'verification_events'), key('verification_events_pkey'));
    assert.deepEqual(await indexesOf(db, 'fraud_range_numbers'), [
      ...key('fraud_range_numbers_pk'),
      'fraud_range_numbers_sent',
      'fraud_range_numbers_window',
    ]);
    assert.deepEqual(
      await indexesOf(db, 'verifications'),
      [
        ...key('verifications_pkey'),
        'verifications_created',
        'verifications_one_pending_per_mode',
        'verifications_status_expiry',
        'verifications_provider_id',
        'verifications_send_window',
        ...(sqlite ? [] : ['verifications_sid_prefix']),
        'verifications_workspace_created',
        'verifications_workspace_phone',
      ].sort(),
    );
    // The timeline's key: the verification, then the order its events are read in.
    const keyColumns = sqlite
      ? await sql<{ name: string }>`select name from pragma_index_info((select name from
          pragma_index_list('verification_events') where origin = 'pk')) order by seqno`.execute(db)
      : await sql<{ name: string }>`select a.attname as name from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = 'verification_events'::regclass and i.indisprimary
          order by array_position(i.indkey::int2[], a.attnum)`.execute(db);
    assert.deepEqual(
      keyColumns.rows.map((r) => r.name),
      ['verification_id', 'seq', 'id'],
    );
    if (sqlite) {
      // Stored in their key's B-tree: no rowid table beside it.
      const { rows } = await sql<{ name: string; wr: number }>`select name, wr from pragma_table_list
        where name in ('verification_events', 'fraud_range_numbers', 'verifications') order by name`.execute(
        db,
      );
      assert.deepEqual(
        rows.map((r) => [r.name, r.wr]),
        [
          ['fraud_range_numbers', 1],
          ['verification_events', 1],
          ['verifications', 0],
        ],
      );
    }
  });

  test("events of one verification at the same stamp (two processes' clocks) are both kept, in id order", async () => {
    const event = (id: string) => ({
      id,
      verification_id: 'ver_samestamp',
      workspace_id: WS,
      kind: 'created' as const,
      detail: null,
      at: 1,
      seq: 1_000,
    });
    await db
      .insertInto('verification_events')
      .values([event('evt_b'), event('evt_a')])
      .execute();
    const rows = await eventsQuery(db, WS, 'ver_samestamp').execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      ['evt_a', 'evt_b'],
    );
    await assert.rejects(db.insertInto('verification_events').values(event('evt_a')).execute());
  });

  test('a SID finds its verification, not a neighbour whose id differs in the last character it stands for', async () => {
    // 20 of the 21 characters a SID stands for, then the 21st at the bottom, the middle and the top of base 62,
    // each followed by the lowest or the highest rest: `z` is the highest character an id has.
    const stem = '0VcIjqE79oM077Q2abcd';
    const ids = [`${stem}0000`, `${stem}Zzzz`, `${stem}xzzz`, `${stem}y000`, `${stem}zzzz`];
    await db
      .insertInto('verifications')
      .values(
        ids.map((tail, n) => ({
          ...verificationRow({
            workspaceId: WS,
            phone: `+6149157${String(n).padStart(4, '0')}`,
            createdAt: 1,
          }),
          id: `ver_${tail}`,
        })),
      )
      .execute();
    for (const tail of ids) {
      const id = `ver_${tail}`;
      const prefix = idPrefixOfSid(verificationSid(id));
      assert.equal(prefix, tail.slice(0, 21));
      assert.equal(await findIdByPrefix(db, WS, prefix ?? '', 'live'), id, id);
    }
    for (const absent of ['1', 'Y', 'w'])
      assert.equal(await findIdByPrefix(db, WS, `${stem}${absent}`, 'live'), undefined, absent);
  });
});

test('migrations 0020 to 0022 keep every event and range number, up and down', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-test-'));
  await ensureDatabase(dir);
  const db = openPlainDatabase(databaseUrlFor(dir));
  const migrator = migratorFor(db);
  try {
    const to = async (name: string) => assert.equal((await migrator.migrateTo(name)).error, undefined);
    await to('0019-sweep-indexes');
    const events = Array.from({ length: 50 }, (_, n) => ({
      id: `evt_${String(n).padStart(4, '0')}`,
      verification_id: `ver_${n % 7}`,
      workspace_id: WS,
      kind: n % 2 ? ('created' as const) : ('attempt' as const),
      detail: n % 3 ? null : JSON.stringify({ n }),
      at: 1_000 + n,
      seq: 5_000 - n,
    }));
    const numbers = Array.from({ length: 30 }, (_, n) => ({
      workspace_id: WS,
      phone: `+614915${String(n).padStart(5, '0')}`,
      range_prefix: `+6149150${n % 3}`,
      last_sent_at: 10_000 + n,
    }));
    await db.insertInto('verification_events').values(events).execute();
    await db.insertInto('fraud_range_numbers').values(numbers).execute();
    const kept = async () => {
      assert.deepEqual(
        (await db.selectFrom('verification_events').selectAll().orderBy('id').execute()).map((r) => ({
          ...r,
          at: Number(r.at),
          seq: Number(r.seq),
        })),
        events,
      );
      assert.deepEqual(
        (await db.selectFrom('fraud_range_numbers').selectAll().orderBy('phone').execute()).map((r) => ({
          ...r,
          last_sent_at: Number(r.last_sent_at),
        })),
        numbers,
      );
    };
    await to('0022-sqlite-range-numbers-by-key');
    await kept();
    await to('0019-sweep-indexes');
    await kept();
    assert.deepEqual(await indexesOf(db, 'verification_events'), [
      ...(dialectOf(db) === 'sqlite' ? [] : ['verification_events_pkey']),
      'verification_events_verification',
    ]);
    await to('0022-sqlite-range-numbers-by-key');
    await kept();
  } finally {
    await db.destroy();
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});
