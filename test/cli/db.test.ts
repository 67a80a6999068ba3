// `db copy` and `db backup` as an operator runs them (the built CLI): JSON shapes, one-line refusals with a
// non-zero exit and nothing on stdout, the backup's file (owner-only, complete, never over a file unless
// --force), and a backup taken while a real server accepts sends that opens and passes integrity_check.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { backupSqlite } from '../../src/store/backup.js';
import type { CopyReport } from '../../src/store/copy/copy.js';
import { assertCleanFailure, callServer, cliSuiteEnv, jsonOf, seedWithCli } from '../helpers/cli-setup.js';
import { databaseUrlFor, dropDatabase, ensureDatabase, TEST_STORE } from '../helpers/database.js';
import { BIN, runCli, startServer } from '../helpers/process.js';

const execCli = promisify(execFile);

/** `db copy --json` prints the copy's report as the service makes it. */
type CopyJson = CopyReport;

describe('db copy (CLI)', () => {
  const { dir, env } = cliSuiteEnv();
  seedWithCli(env);
  const source = env.DATABASE_URL as string;

  test('--json: one JSON value with every table and its rows; the target holds them', () => {
    const target = `sqlite:${join(dir, 'copy.db')}`;
    const report = jsonOf<CopyJson>(runCli(['db', 'copy', '--from', source, '--to', target, '--json'], env));
    assert.equal(report.to, target);
    assert.equal(report.replaced, false);
    assert.match(report.schema, /^\d{4}-/);
    assert.equal(report.tables.find((t) => t.name === 'workspaces')?.rows, 1);
    assert.equal(report.tables.find((t) => t.name === 'api_keys')?.rows, 1);
    assert.equal(
      report.total_rows,
      report.tables.reduce((s, t) => s + t.rows, 0),
    );
    // Owner-only, like the server's own file: it holds the same data.
    assert.equal(statSync(join(dir, 'copy.db')).mode & 0o777, 0o600);
    // The copy answers as the source: the CLI on it lists the same workspace.
    const listed = jsonOf<{ name: string }[]>(
      runCli(['workspace', 'list', '--json'], { ...env, DATABASE_URL: target }),
    );
    assert.deepEqual(
      listed.map((w) => w.name),
      ['Acme'],
    );
  });

  test('without --json: the tables, a total and, on stderr, the secret the target needs', () => {
    const result = runCli(['db', 'copy', '--from', source, '--to', `sqlite:${join(dir, 'human.db')}`], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^copied .* -> sqlite:.*human\.db \(schema \d{4}-/);
    assert.match(result.stdout, /\nworkspaces +1\n/);
    assert.match(result.stdout, /\ntotal +\d+\n$/);
    assert.match(result.stderr, /PHONE_VERIFY_SECRET/);
  });

  test('refusals: one line on stderr, nothing on stdout, exit 1 (2 when called wrongly)', () => {
    const copied = `sqlite:${join(dir, 'copy.db')}`;
    const again = runCli(['db', 'copy', '--from', source, '--to', copied, '--json'], env);
    assertCleanFailure(again, /already holds data .*: pass --force to replace it/);
    assert.equal(again.status, 1);
    const self = runCli(['db', 'copy', '--from', source, '--to', source], env);
    assertCleanFailure(self, /--from and --to are the same database/);
    const unreachable = runCli(
      ['db', 'copy', '--from', source, '--to', 'postgres://postgres:hunter2@127.0.0.1:1/none', '--json'],
      env,
    );
    assertCleanFailure(unreachable, /cannot reach postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none/);
    assert.doesNotMatch(unreachable.stderr, /hunter2/);
    assertCleanFailure(
      runCli(['db', 'copy', '--from', 'mysql://x/y', '--to', copied], env),
      /--from: must start with sqlite:/,
    );
    assertCleanFailure(runCli(['db', 'copy', '--from', dir, '--to', copied], env), /--from: must start with/);
    assertCleanFailure(
      runCli(['db', 'copy', '--from', `sqlite:${dir}`, '--to', copied], env),
      /--from: .* is a directory/,
    );
    const missing = runCli(['db', 'copy', '--to', copied], env);
    assertCleanFailure(missing, /--from is required/);
    assert.equal(missing.status, 2);
    assertCleanFailure(
      runCli(['db', 'copy', '--from', source, '--to', copied, '--force=yes'], env),
      /--force/,
    );
    assertCleanFailure(runCli(['db', 'copy', '--from', source, '--to', copied, 'extra'], env), /usage/);
  });

  test('two copies into one empty target at once: one copies, the other finds its rows and refuses', async () => {
    const spare = join(dir, 'race');
    await ensureDatabase(spare);
    after(() => dropDatabase(spare));
    const target = TEST_STORE === 'postgres' ? databaseUrlFor(spare) : `sqlite:${join(dir, 'race.db')}`;
    const copy = () =>
      execCli(process.execPath, [BIN, 'db', 'copy', '--from', source, '--to', target, '--json'], {
        env: { ...process.env, ...env },
      }).then(
        (r) => ({ ok: true, stderr: r.stderr }),
        (e: { stderr: string; code: number }) => ({ ok: false, stderr: e.stderr, code: e.code }),
      );
    const results = await Promise.all([copy(), copy()]);
    assert.equal(results.filter((r) => r.ok).length, 1, JSON.stringify(results));
    const refused = results.find((r) => !r.ok);
    assert.match(refused?.stderr ?? '', /^error: .*already holds data .*--force.*\n$/);
    assert.equal(
      jsonOf<{ name: string }[]>(runCli(['workspace', 'list', '--json'], { ...env, DATABASE_URL: target }))
        .length,
      1,
    );
  });

  test('copying touches no database at DATABASE_URL', () => {
    const never = join(dir, 'never', 'never.db');
    const result = runCli(
      ['db', 'copy', '--from', source, '--to', `sqlite:${join(dir, 'third.db')}`, '--json'],
      { ...env, DATABASE_URL: `sqlite:${never}` },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.equal(existsSync(never), false);
  });
});

describe('db backup (CLI)', () => {
  const { dir, env } = cliSuiteEnv();
  const backups = mkdtempSync(join(tmpdir(), 'pv-backups-'));
  after(() => rmSync(backups, { recursive: true, force: true }));

  if (TEST_STORE === 'postgres') {
    test('PostgreSQL: refused in one line that points at pg_dump', () => {
      const result = runCli(['db', 'backup', '--to', join(backups, 'x.db'), '--json'], env);
      assertCleanFailure(result, /on PostgreSQL use pg_dump: pg_dump --format=custom/);
      assert.equal(existsSync(join(backups, 'x.db')), false);
    });
    return;
  }

  const { key } = seedWithCli(env);

  test('a backup taken while a server accepts sends is complete: it opens and passes integrity_check', async () => {
    const server = await startServer(env);
    let sending = true;
    let sent = 0;
    const sends = (async () => {
      for (let i = 0; sending; i++) {
        const phone = `+614123${String(10000 + (i % 9000)).slice(-5)}`;
        const r = await callServer(server.url, key, 'POST', '/v1/otp/send', { phone, channel: 'sms' });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        sent++;
      }
    })();
    try {
      // Sends are under way before the backup starts, and go on during it.
      while (sent < 20) await new Promise((r) => setTimeout(r, 10));
      const file = join(backups, 'live.db');
      const { stdout } = await execCli(process.execPath, [BIN, 'db', 'backup', '--to', file, '--json'], {
        env: { ...process.env, ...env },
      });
      const before = sent;
      while (sent < before + 5) await new Promise((r) => setTimeout(r, 10));
      const report = JSON.parse(stdout) as { database: string; file: string; bytes: number };
      assert.equal(report.file, file);
      assert.equal(report.bytes, statSync(file).size);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const copy = new SQLite(file, { readonly: true });
      try {
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
        const rows = copy.prepare('select count(*) from verifications').pluck().get() as number;
        assert.ok(rows >= 20, `${rows} verifications in the backup`);
      } finally {
        copy.close();
      }
    } finally {
      sending = false;
      await sends;
      await server.stop();
    }
  });

  test('an existing file is refused unless --force, which replaces it whole', () => {
    const file = join(backups, 'existing.db');
    writeFileSync(file, 'not a database');
    assertCleanFailure(
      runCli(['db', 'backup', '--to', file], env),
      /--to: .*existing\.db exists: pass --force/,
    );
    assert.equal(readFileSync(file, 'utf8'), 'not a database');
    const result = runCli(['db', 'backup', '--to', file, '--force', '--json'], env);
    assert.equal(result.status, 0, result.stderr);
    const copy = new SQLite(file, { readonly: true });
    assert.equal(copy.prepare('select count(*) from workspaces').pluck().get(), 1);
    copy.close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test('without --json: the file and its size (a name in odd Unicode is just a name)', () => {
    const name = 'hu\u0301man \u2603 \u{1F600}.db';
    const result = runCli(['db', 'backup', '--to', join(backups, name)], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^database +sqlite:.*\nfile +.*\.db\nbytes +\d+\n$/);
    assert.ok(result.stdout.includes(name));
    const copy = new SQLite(join(backups, name), { readonly: true });
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    copy.close();
  });

  test('bad destinations are refused, nothing left behind', async () => {
    mkdirSync(join(backups, 'a-dir'));
    writeFileSync(join(backups, 'a-file'), 'x');
    assertCleanFailure(
      runCli(['db', 'backup', '--to', join(backups, 'a-dir')], env),
      /--to: .*a-dir is a directory/,
    );
    assertCleanFailure(
      runCli(['db', 'backup', '--to', join(backups, 'nowhere', 'x.db')], env),
      /--to: cannot write in .*nowhere: its directory does not exist/,
    );
    assertCleanFailure(
      runCli(['db', 'backup', '--to', join(backups, 'a-file', 'x.db')], env),
      /--to: cannot write in .*a-file/,
    );
    assertCleanFailure(
      runCli(['db', 'backup', '--to', (env.DATABASE_URL as string).slice('sqlite:'.length), '--force'], env),
      /--to: is the database itself/,
    );
    assertCleanFailure(runCli(['db', 'backup'], env), /--to is required/);
    assertCleanFailure(
      runCli(['db', 'backup', '--to', join(backups, 'y.db')], {
        ...env,
        DATABASE_URL: `sqlite:${join(dir, 'none.db')}`,
      }),
      /no database at .*none\.db/,
    );
    // What argv cannot carry, called in-process.
    await assert.rejects(
      backupSqlite({ databaseUrl: env.DATABASE_URL as string, to: `${backups}/x\u0000.db` }),
      /to: must not hold control characters/,
    );
    await assert.rejects(
      backupSqlite({ databaseUrl: env.DATABASE_URL as string, to: 'x'.repeat(5000) }),
      /to: must be at most 4096 characters/,
    );
    assert.deepEqual(
      (await import('node:fs')).readdirSync(backups).filter((n) => n.endsWith('.partial')),
      [],
    );
  });
});
