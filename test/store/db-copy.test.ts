// `db copy` in-process, on the suite's store (TEST_STORE): SQLite → store → SQLite, every table of the migrated
// schema with a row in it (seeded by the table's own columns, so a table a future migration adds is seeded, and
// checked, with no change here), compared value for value; refusals; a failed copy rolled back; batches bounded.
import assert from 'node:assert/strict';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { copyDatabase } from '../../src/store/copy/copy.js';
import { openStore } from '../../src/store/database.js';
import { databaseUrlFor, dropDatabase, ensureDatabase, TEST_STORE } from '../helpers/database.js';
import { sqliteTableNames, tableRows } from '../helpers/table-rows.js';

/** Odd Unicode in every text column: accents (composed and not), a snowman, an emoji, a zero-width space. */
const ODD = 'r\u00e9e\u0301 \u2603 \u{1F600}\u200b';
/** Past 2^53: a double would round it. */
const BIG = 9_007_199_254_740_993n;

async function migratedFile(path: string): Promise<void> {
  const store = await openStore(`sqlite:${path}`);
  await store.close();
}

/**
 * One row in every table, from its own columns: text columns all hold ODD (so every foreign key finds its
 * parent), bigint columns BIG, other integers 1; `extra` more rows in `verification_events`.
 */
/** Columns a CHECK constrains, with values it accepts (a key's mode is the one its prefix names). */
const CHECKED: Record<string, Record<string, string>> = {
  api_keys: { prefix: 'pv_live_odd1', mode: 'live' },
};

function seedEveryTable(path: string, extra = 0): void {
  const db = new SQLite(path);
  // Tables in name order, a child before its parent: checked by the copy's target, not here.
  db.pragma('foreign_keys = OFF');
  try {
    for (const table of sqliteTableNames(path)) {
      const columns = db.prepare('select name, type from pragma_table_info(?) order by cid').all(table) as {
        name: string;
        type: string;
      }[];
      const value = (type: string) => (/bigint/i.test(type) ? BIG : /int/i.test(type) ? 1 : ODD);
      const insert = db.prepare(
        `insert into "${table}" (${columns.map((c) => `"${c.name}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      );
      // Where a CHECK ties columns together, the values it accepts.
      const cell = (c: { name: string; type: string }) => CHECKED[table]?.[c.name] ?? value(c.type);
      insert.run(columns.map(cell));
      if (table === 'verification_events')
        for (let i = 0; i < extra; i++)
          insert.run(columns.map((c) => (c.name === 'id' ? `${ODD}${i}` : cell(c))));
    }
  } finally {
    db.close();
  }
}

describe(`db copy (${TEST_STORE})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-copy-'));
  const source = `sqlite:${join(dir, 'source.db')}`;
  const store = databaseUrlFor(dir);
  const fresh = join(dir, 'fresh.db');

  before(async () => {
    await ensureDatabase(dir);
    await migratedFile(join(dir, 'source.db'));
    seedEveryTable(join(dir, 'source.db'), 24);
    await migratedFile(fresh);
  });
  after(async () => {
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  test('every table of the migrated schema is copied, value for value (SQLite → the store)', async () => {
    const batches: { table: string; rows: number }[] = [];
    const report = await copyDatabase({
      from: source,
      to: store,
      batchRows: 10,
      onBatch: (table, rows) => {
        batches.push({ table, rows });
      },
    });
    // The tables a fresh migration makes, read here on their own: none left out, none made up.
    assert.deepEqual(report.tables.map((t) => t.name).sort(), sqliteTableNames(fresh));
    for (const t of report.tables) assert.ok(t.rows >= 1, `${t.name} was seeded with a row`);
    assert.equal(
      report.total_rows,
      report.tables.reduce((s, t) => s + t.rows, 0),
    );
    assert.equal(report.replaced, false);
    assert.deepEqual(await tableRows(store), await tableRows(source));
    // Memory bounded: 25 events came in batches of at most 10.
    assert.deepEqual(
      batches.filter((b) => b.table === 'verification_events').map((b) => b.rows),
      [10, 10, 5],
    );
    assert.ok(batches.every((b) => b.rows <= 10));
  });

  test('parents are written before the rows that point at them', async () => {
    const report = await copyDatabase({ from: source, to: `sqlite:${join(dir, 'order.db')}` });
    const at = (name: string) => report.tables.findIndex((t) => t.name === name);
    assert.ok(at('workspaces') < at('workspace_numbers'));
    assert.ok(at('workspaces') < at('api_keys'));
    assert.ok(at('users') < at('memberships'));
  });

  test('and back (the store → a new SQLite file), still value for value', async () => {
    const back = `sqlite:${join(dir, 'back.db')}`;
    await copyDatabase({ from: store, to: back });
    assert.deepEqual(await tableRows(back), await tableRows(source));
  });

  test('a target that holds data is refused; --force replaces it', async () => {
    await assert.rejects(
      copyDatabase({ from: source, to: store }),
      /already holds data \(.*workspaces: 1.*\): pass --force/,
    );
    const other = join(dir, 'other.db');
    await migratedFile(other);
    seedEveryTable(other);
    const db = new SQLite(other);
    db.prepare('update workspaces set name = ?').run('replaced');
    db.close();
    const report = await copyDatabase({ from: `sqlite:${other}`, to: store, force: true });
    assert.equal(report.replaced, true);
    assert.deepEqual(await tableRows(store), await tableRows(`sqlite:${other}`));
  });

  test('a copy that fails is rolled back: the target keeps what it had, a new one no row', async () => {
    const broken = join(dir, 'broken.db');
    copyFileSync(join(dir, 'source.db'), broken);
    // A number whose workspace does not exist.
    const db = new SQLite(broken);
    db.pragma('foreign_keys = OFF');
    db.prepare(`update workspace_numbers set workspace_id = 'no such workspace'`).run();
    db.close();
    const before = await tableRows(store);
    await assert.rejects(
      copyDatabase({ from: `sqlite:${broken}`, to: store, force: true }),
      /the copy failed and was rolled back \(.* is as it was\): .*foreign key/i,
    );
    assert.deepEqual(await tableRows(store), before);
    const empty = `sqlite:${join(dir, 'empty.db')}`;
    await assert.rejects(copyDatabase({ from: `sqlite:${broken}`, to: empty }), /rolled back/);
    const rows = await tableRows(empty);
    for (const [table, list] of Object.entries(rows))
      assert.equal(list.length, table === 'watermarks' ? 2 : 0, `${table} after a failed copy`);
  });

  test('the target is held for the whole copy: no other connection writes to it meanwhile (PostgreSQL: nor reads)', async () => {
    let release: () => void = () => {};
    let paused: () => void = () => {};
    const reached = new Promise<void>((r) => {
      paused = r;
    });
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const target = TEST_STORE === 'postgres' ? store : `sqlite:${join(dir, 'held.db')}`;
    // The copy stops after its first batch, its transaction open, until released.
    const copying = copyDatabase({
      from: source,
      to: target,
      force: true,
      onBatch: () => {
        paused();
        return hold;
      },
    });
    await reached;
    if (TEST_STORE === 'postgres') {
      const other = new pg.Client({ connectionString: store });
      await other.connect();
      try {
        await other.query(`set lock_timeout = '100ms'`);
        await assert.rejects(other.query('select count(*) from workspaces'), { code: '55P03' });
      } finally {
        await other.end();
      }
    } else {
      const other = new SQLite(join(dir, 'held.db'));
      other.pragma('busy_timeout = 0');
      assert.throws(() => other.exec('begin immediate'), { code: 'SQLITE_BUSY' });
      other.close();
    }
    release();
    await copying;
  });

  test('a database is never copied onto itself, whatever the name it is given', async () => {
    const alias = join(dir, 'alias.db');
    linkSync(join(dir, 'source.db'), alias);
    await assert.rejects(copyDatabase({ from: source, to: `sqlite:${dir}/./source.db` }), /same database/);
    await assert.rejects(copyDatabase({ from: source, to: `sqlite:${alias}` }), /same database/);
    if (TEST_STORE === 'postgres') {
      const other = new URL(store);
      other.hostname = other.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
      await assert.rejects(copyDatabase({ from: store, to: other.toString(), force: true }), /same database/);
    }
  });

  test('a source at another migration version is refused, naming both', async () => {
    const names = new SQLite(fresh, { readonly: true });
    const migrations = names
      .prepare('select name from kysely_migration order by name')
      .pluck()
      .all() as string[];
    names.close();
    const [previous, last] = [migrations.at(-2), migrations.at(-1)];
    const old = join(dir, 'old.db');
    copyFileSync(join(dir, 'source.db'), old);
    const db = new SQLite(old);
    db.prepare('delete from kysely_migration where name = ?').run(last);
    db.close();
    await assert.rejects(
      copyDatabase({ from: `sqlite:${old}`, to: `sqlite:${join(dir, 'x.db')}` }),
      new RegExp(`is at migration ${previous}, this build at ${last}`),
    );
    const newer = join(dir, 'newer.db');
    copyFileSync(join(dir, 'source.db'), newer);
    const db2 = new SQLite(newer);
    db2.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999-future', 'now');
    db2.close();
    await assert.rejects(
      copyDatabase({ from: `sqlite:${newer}`, to: `sqlite:${join(dir, 'y.db')}` }),
      /has migrations this build does not know \(9999-future\)/,
    );
    const plain = join(dir, 'plain.db');
    new SQLite(plain).close();
    await assert.rejects(
      copyDatabase({ from: `sqlite:${plain}`, to: `sqlite:${join(dir, 'z.db')}` }),
      /is not a phone-verify database/,
    );
  });

  test('a table no migration knows, on both sides, is copied too; its serial column goes on past the copied ids', async () => {
    const extra = join(dir, 'extra.db');
    copyFileSync(join(dir, 'source.db'), extra);
    const db = new SQLite(extra);
    db.exec('create table extra_notes (id integer primary key, note text not null)');
    db.exec(`insert into extra_notes (id, note) values (1, 'a'), (2, 'b'), (7, 'c')`);
    db.close();
    const target = TEST_STORE === 'postgres' ? store : `sqlite:${join(dir, 'extra-target.db')}`;
    if (TEST_STORE === 'postgres') {
      const client = new pg.Client({ connectionString: store });
      await client.connect();
      await client.query('create table extra_notes (id serial primary key, note text not null)');
      await client.end();
    } else {
      await migratedFile(join(dir, 'extra-target.db'));
      const t = new SQLite(join(dir, 'extra-target.db'));
      t.exec('create table extra_notes (id integer primary key autoincrement, note text not null)');
      t.close();
    }
    const report = await copyDatabase({ from: `sqlite:${extra}`, to: target, force: true });
    assert.deepEqual(
      report.tables.find((t) => t.name === 'extra_notes'),
      { name: 'extra_notes', rows: 3 },
    );
    if (TEST_STORE === 'postgres') {
      const client = new pg.Client({ connectionString: store });
      await client.connect();
      const { rows } = await client.query(`insert into extra_notes (note) values ('d') returning id`);
      await client.query('drop table extra_notes');
      await client.end();
      assert.equal(rows[0].id, 8);
    } else {
      const t = new SQLite(join(dir, 'extra-target.db'));
      assert.equal(t.prepare(`insert into extra_notes (note) values ('d') returning id`).pluck().get(), 8);
      t.close();
    }
  });

  test('bad ends are refused with a reason, before anything is opened or created', async () => {
    mkdirSync(join(dir, 'a-directory'));
    writeFileSync(join(dir, 'a-file'), 'x');
    const cases: [string, string, RegExp][] = [
      [`sqlite:${dir}/x\u0000.db`, store, /from: must not hold control characters/],
      [source, `sqlite:${dir}/\u202e\u0007.db`, /to: must not hold control characters/],
      [`sqlite:${'a'.repeat(5000)}`, store, /from: must be at most 4096 characters/],
      ['ftp://example.com/db', store, /from: must start with sqlite:, postgres:\/\/ or postgresql:\/\//],
      ['', store, /from: must start with/],
      ['sqlite:', store, /from: an in-memory database/],
      [source, 'sqlite::memory:', /to: an in-memory database/],
      [source, 'postgres://[oops', /to: is not a valid postgres:\/\/ URL/],
      [source, 'postgres://postgres@127.0.0.1:5432', /to: name the database/],
      [`sqlite:${dir}/a-directory`, store, /from: .*a-directory is a directory/],
      [source, `sqlite:${dir}/a-directory`, /to: .*a-directory is a directory/],
      [`sqlite:${dir}/missing.db`, store, /from: no database at .*missing\.db/],
      [source, `sqlite:${dir}/a-file/inside.db`, /to: cannot open .*inside\.db/],
      [
        source,
        'postgres://postgres:hunter2@127.0.0.1:1/x',
        /cannot reach postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x: .*ECONNREFUSED/,
      ],
    ];
    for (const [from, to, reason] of cases) {
      const err = await copyDatabase({ from, to }).then(
        () => assert.fail(`${from} -> ${to} was accepted`),
        (e: Error) => e,
      );
      assert.match(err.message, reason);
      assert.doesNotMatch(err.message, /hunter2/);
      assert.doesNotMatch(err.message, /\n/);
    }
  });
});
