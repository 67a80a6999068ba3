// Issue 11, item 9: the data directory holds phone numbers, delivery metadata, the development outbox's codes
// and the generated secret, so it is the owner's alone: 0700, and its files (the SQLite database, its -wal and
// -shm, the secret) 0600, whatever the umask; an older install's 0755/0644 are tightened when the server or the
// CLI opens the store. A folder shared with other files is left as it is, and files the process does not own are
// warned about, never a failure. Real processes and files, on both stores (PostgreSQL keeps only the secret here).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { SECRET_FILE } from '../../src/secret.js';
import { databaseUrlFor, dropDatabase, ensureDatabaseSync, TEST_STORE } from '../helpers/database.js';
import { runCli, startServer } from '../helpers/process.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'phone-verify.js');
const DB_FILE = 'phone-verify.db';
const modeOf = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;
const sqlite = TEST_STORE === 'sqlite';

/** A base folder (removed after the suite) and, inside it, the data directory `data` (not created). */
function layout(): { base: string; data: string; env: Record<string, string> } {
  const base = mkdtempSync(join(tmpdir(), 'pv-modes-'));
  const data = join(base, 'data');
  ensureDatabaseSync(base);
  after(async () => {
    await dropDatabase(base);
    rmSync(base, { recursive: true, force: true });
  });
  // The secret is generated into the data directory; with SQLite the database is there too.
  const env = {
    PHONE_VERIFY_SECRET: '',
    DATA_DIR: data,
    DATABASE_URL: sqlite ? `sqlite:${join(data, DB_FILE)}` : databaseUrlFor(base),
  };
  return { base, data, env };
}

/** The files the service keeps in the data directory while a server runs on this store. */
const serviceFiles = (data: string) =>
  (sqlite ? [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, SECRET_FILE] : [SECRET_FILE]).map((f) =>
    join(data, f),
  );

describe('file modes of the data directory', () => {
  test('a fresh data directory is 0700, and the database, its -wal and -shm and the secret 0600, even with umask 000', async () => {
    const { data, env } = layout();
    const umask = process.umask(0);
    try {
      const server = await startServer(env);
      try {
        assert.equal(modeOf(data), '0700');
        for (const file of serviceFiles(data)) assert.equal(modeOf(file), '0600', file);
        assert.doesNotMatch(server.stderr(), /open to other users/);
      } finally {
        await server.stop();
      }
    } finally {
      process.umask(umask);
    }
  });

  test('an existing 0755 directory with 0644 files (a -wal and -shm in use too) is tightened at start', async () => {
    const { data, env } = layout();
    assert.equal(runCli(['workspace', 'create', '--name', 'Acme'], env).status, 0);
    // Another connection holds the database open, so its -wal and -shm exist; all as an older install left them.
    const held = sqlite ? new SQLite(join(data, DB_FILE)) : undefined;
    try {
      held?.pragma('journal_mode = WAL');
      held?.exec('select 1');
      chmodSync(data, 0o755);
      for (const file of serviceFiles(data)) chmodSync(file, 0o644);
      const server = await startServer(env);
      try {
        assert.equal(modeOf(data), '0700');
        for (const file of serviceFiles(data)) assert.equal(modeOf(file), '0600', file);
      } finally {
        await server.stop();
      }
    } finally {
      held?.close();
    }
  });

  test('the CLI tightens them too, and an owner-only mode the operator chose (0400) is kept', () => {
    const { data, env } = layout();
    assert.equal(runCli(['workspace', 'list'], env).status, 0);
    chmodSync(data, 0o750);
    const secret = join(data, SECRET_FILE);
    chmodSync(secret, 0o400);
    if (sqlite) chmodSync(join(data, DB_FILE), 0o664);
    const result = runCli(['workspace', 'list', '--json'], env);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(modeOf(data), '0700');
    assert.equal(modeOf(secret), '0400');
    if (sqlite) assert.equal(modeOf(join(data, DB_FILE)), '0600');
  });

  test('a directory that also holds other files is left as it is, with a warning; the service files are still made 0600', async () => {
    const { data, env } = layout();
    assert.equal(runCli(['workspace', 'list'], env).status, 0);
    chmodSync(data, 0o755);
    writeFileSync(join(data, 'notes.txt'), 'not phone-verify\n', { mode: 0o644 });
    chmodSync(join(data, SECRET_FILE), 0o644);
    const result = runCli(['workspace', 'list', '--json'], env);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), []);
    assert.equal(modeOf(data), '0755');
    assert.equal(modeOf(join(data, 'notes.txt')), '0644');
    assert.equal(modeOf(join(data, SECRET_FILE)), '0600');
    const warning = `${data} is open to other users (mode 0755) and also holds files that are not phone-verify's, so it is left as it is: give the service a directory of its own, or run chmod 700 on it`;
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
    assert.deepEqual(warnings, [`warning: ${warning}`]);
    // The server says so in its log, and serves.
    const server = await startServer(env);
    try {
      assert.ok(server.stderr().includes(JSON.stringify(warning)), server.stderr());
    } finally {
      await server.stop();
    }
  });

  const root = process.getuid?.() === 0;
  test('files and a directory the process does not own: warned about, and the command still succeeds', {
    skip: root ? false : 'needs root, to run the CLI as another user (nobody)',
  }, () => {
    const nobody = 65534;
    const { base, data, env } = layout();
    chmodSync(base, 0o755);
    // The data directory (the secret's) belongs to root, open to others, with a secret readable by all.
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    writeFileSync(join(data, SECRET_FILE), `${'s'.repeat(43)}\n`, { mode: 0o644 });
    chmodSync(join(data, SECRET_FILE), 0o644);
    // The database (with SQLite) in a folder of nobody's own.
    const own = join(base, 'own');
    mkdirSync(own, { mode: 0o700 });
    chownSync(own, nobody, nobody);
    const asNobody = { ...env, DATABASE_URL: sqlite ? `sqlite:${join(own, DB_FILE)}` : env.DATABASE_URL };
    const result = spawnSync(process.execPath, [BIN, 'workspace', 'list', '--json'], {
      env: { ...process.env, ...asNobody },
      encoding: 'utf8',
      uid: nobody,
      gid: nobody,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), []);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
    assert.deepEqual(warnings, [
      `warning: ${data} is open to other users (mode 0755) and could not be made 0700 (EPERM: the process does not own it): run chmod 700 on it as its owner`,
      `warning: ${join(data, SECRET_FILE)} is open to other users (mode 0644) and could not be made 0600 (EPERM: the process does not own it): run chmod 600 on it as its owner`,
    ]);
    assert.equal(modeOf(data), '0755');
    if (sqlite) {
      assert.equal(modeOf(join(own, DB_FILE)), '0600');
      assert.equal(existsSync(join(own, SECRET_FILE)), false);
    }
  });
});
