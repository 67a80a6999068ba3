// The restore drill of docs/operations.md, run as an operator runs it, on the suite's store: a code is sent,
// the database backed up (SQLite: `db backup` while the server runs, or `db copy` to a file; PostgreSQL:
// pg_dump, or `db copy` to a fresh database), the original wiped, the backup restored, and the service started
// on the restored data: the pending code still verifies over HTTP.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { freshEnv } from '../helpers/cli-env.js';
import { callServer, seedWithCli } from '../helpers/cli-setup.js';
import {
  databaseUrlFor,
  dropDatabase,
  ensureDatabase,
  PG_ADMIN_URL,
  TEST_STORE,
} from '../helpers/database.js';
import { cliJson, startServer } from '../helpers/process.js';

const PHONE = '+61412345678';

function codeFromOutbox(env: Record<string, string>): { code: string; verificationId: string } {
  const [message] = cliJson<{ body: string; verification_id: string }[]>(
    ['outbox', '--to', PHONE, '--limit', '1'],
    env,
  );
  const code = /(\d+)\s*$/.exec(message?.body ?? '')?.[1];
  assert.ok(message && code, 'the code is in the outbox');
  return { code, verificationId: message.verification_id };
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`);
}

/** PostgreSQL: the database dropped and made again, empty. */
async function wipePostgres(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`drop database "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
}

interface Drill {
  name: string;
  /** Runs while the server serves; returns how to restore once the original is wiped. */
  backup(env: Record<string, string>, dir: string): Promise<() => Promise<void>> | (() => Promise<void>);
  wipe(env: Record<string, string>): Promise<void>;
}

const sqlitePath = (env: Record<string, string>) => (env.DATABASE_URL as string).slice('sqlite:'.length);
const wipeSqlite = async (env: Record<string, string>) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath(env) + suffix, { force: true });
};

const DRILLS: Drill[] =
  TEST_STORE === 'sqlite'
    ? [
        {
          name: 'db backup while serving, the file copied back',
          backup: (env, dir) => {
            const file = join(dir, 'backup.db');
            cliJson(['db', 'backup', '--to', file], env);
            return async () => copyFileSync(file, sqlitePath(env));
          },
          wipe: wipeSqlite,
        },
        {
          name: 'db copy to a file while serving, db copy back',
          backup: (env, dir) => {
            const file = `sqlite:${join(dir, 'copy.db')}`;
            cliJson(['db', 'copy', '--from', env.DATABASE_URL as string, '--to', file], env);
            return async () => {
              cliJson(['db', 'copy', '--from', file, '--to', env.DATABASE_URL as string], env);
            };
          },
          wipe: wipeSqlite,
        },
      ]
    : [
        {
          name: 'pg_dump while serving, pg_restore into the wiped database',
          backup: (env, dir) => {
            const file = join(dir, 'backup.dump');
            run('pg_dump', ['--format=custom', `--file=${file}`, env.DATABASE_URL as string]);
            return async () => run('pg_restore', ['--no-owner', `--dbname=${env.DATABASE_URL}`, file]);
          },
          wipe: (env) => wipePostgres(env.DATABASE_URL as string),
        },
        {
          name: 'db copy to a fresh database while serving, db copy back',
          backup: async (env, dir) => {
            const spare = join(dir, 'spare');
            await ensureDatabase(spare);
            after(() => dropDatabase(spare));
            const copy = databaseUrlFor(spare);
            cliJson(['db', 'copy', '--from', env.DATABASE_URL as string, '--to', copy], env);
            return async () => {
              cliJson(['db', 'copy', '--from', copy, '--to', env.DATABASE_URL as string], env);
            };
          },
          wipe: (env) => wipePostgres(env.DATABASE_URL as string),
        },
      ];

describe(`restore drill (${TEST_STORE})`, () => {
  for (const drill of DRILLS) {
    test(`${drill.name}: a code sent before the backup still verifies on the restored data`, async () => {
      const { dir, env } = freshEnv();
      after(async () => {
        await dropDatabase(dir);
        rmSync(dir, { recursive: true, force: true });
      });
      const { key } = seedWithCli(env);
      const first = await startServer(env);
      let restore: () => Promise<void>;
      try {
        const sent = await callServer(first.url, key, 'POST', '/v1/otp/send', {
          phone: PHONE,
          channel: 'sms',
        });
        assert.equal(sent.status, 201);
        restore = await drill.backup(env, dir);
      } finally {
        assert.equal(await first.stop('SIGTERM'), 0);
      }
      // What the user received (read before the wipe: it left with the SMS).
      const { code, verificationId } = codeFromOutbox(env);
      await drill.wipe(env);
      await restore();
      const restored = await startServer(env);
      try {
        const checked = await callServer(restored.url, key, 'POST', '/v1/otp/check', {
          verification_id: verificationId,
          code,
        });
        assert.equal(checked.status, 200, JSON.stringify(checked.body));
        assert.equal(checked.body.verified, true);
        assert.equal(checked.body.status, 'verified');
      } finally {
        await restored.stop();
      }
    });
  }
});

describe('moving from SQLite to PostgreSQL (db copy), as docs/deployment.md says', () => {
  test('a code sent on SQLite verifies on PostgreSQL after the copy, with the same secret', async (t) => {
    if (TEST_STORE !== 'postgres') {
      t.skip('runs in the PostgreSQL pass, which has a server to copy to');
      return;
    }
    const { dir, env: pgEnv } = freshEnv();
    after(async () => {
      await dropDatabase(dir);
      rmSync(dir, { recursive: true, force: true });
    });
    const sqliteEnv = { ...pgEnv, DATABASE_URL: `sqlite:${join(dir, 'embedded.db')}` };
    const { key } = seedWithCli(sqliteEnv);
    const embedded = await startServer(sqliteEnv);
    try {
      const sent = await callServer(embedded.url, key, 'POST', '/v1/otp/send', {
        phone: PHONE,
        channel: 'sms',
      });
      assert.equal(sent.status, 201);
    } finally {
      assert.equal(await embedded.stop('SIGTERM'), 0);
    }
    const { code, verificationId } = codeFromOutbox(sqliteEnv);
    cliJson(['db', 'copy', '--from', sqliteEnv.DATABASE_URL, '--to', pgEnv.DATABASE_URL as string], pgEnv);
    const moved = await startServer(pgEnv);
    try {
      const checked = await callServer(moved.url, key, 'POST', '/v1/otp/check', {
        verification_id: verificationId,
        code,
      });
      assert.equal(checked.status, 200, JSON.stringify(checked.body));
      assert.equal(checked.body.verified, true);
    } finally {
      await moved.stop();
    }
  });
});
