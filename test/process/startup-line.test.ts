// The start-up line (issue 16, item 5): the first line a real `serve` process logs names the dashboard and API docs
// URLs, the store (without credentials), the active delivery providers, and whether the server secret was generated
// now or read; nothing secret is in it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { VERSION } from '../../src/version.js';
import { TEST_SECRET } from '../helpers/app.js';
import { twilioArgs } from '../helpers/carrier-fixtures.js';
import { freshEnv } from '../helpers/cli-env.js';
import { createWorkspace } from '../helpers/cli-setup.js';
import { TEST_STORE } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { BIN, cliJson } from '../helpers/process.js';

/** Starts `serve --json` (logs on stderr, at info), takes its first log line, and stops it with SIGTERM. */
async function firstLogLine(
  env: Record<string, string>,
): Promise<{ url: string; first: string; all: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--json'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = once(child, 'exit');
  try {
    const url = await eventually('the listening line', () => {
      if (child.exitCode !== null) throw new Error(`serve exited: ${stderr}`);
      return stdout.includes('\n') && (JSON.parse(stdout.split('\n')[0] as string) as { url: string }).url;
    });
    const first = await eventually(
      'a first log line',
      () => stderr.includes('\n') && (stderr.split('\n')[0] as string),
    );
    return { url, first, all: stderr };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const msgOf = (line: string) => (JSON.parse(line) as { msg: string; level: number }).msg;

describe('serve: the start-up line', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    const made = freshEnv();
    dirs.push(made.dir);
    return made;
  };

  test('names the dashboard and API docs at the address it listens on, the store, the development outbox, and a secret generated now, then read', async () => {
    const { dir, env } = fresh();
    const { PHONE_VERIFY_SECRET: _unset, ...withoutSecret } = env;
    const { url, first, all } = await firstLogLine(withoutSecret);
    const msg = msgOf(first);
    assert.equal(
      msg.split(';')[0],
      `phone-verify ${VERSION} listening at ${url}: dashboard ${url}/dashboard, API docs ${url}/docs`,
    );
    if (TEST_STORE === 'sqlite')
      assert.match(msg, new RegExp(`; store sqlite ${join(dir, 'test.db').replaceAll('.', '\\.')};`));
    else assert.match(msg, /; store postgres 127\.0\.0\.1:5432\/pv_test_\w+;/);
    assert.match(msg, /; delivery: development outbox \(no carrier account yet: codes reach no phone\);/);
    const secretFile = join(dir, 'phone-verify.secret');
    assert.match(
      msg,
      new RegExp(
        `; secret generated now from ${secretFile.replaceAll('.', '\\.')} \\(back it up with the database\\)$`,
      ),
    );
    // Nothing secret anywhere in the log: not the generated secret.
    const secret = readFileSync(secretFile, 'utf8').trim();
    assert.equal(all.includes(secret), false);

    const again = msgOf((await firstLogLine(withoutSecret)).first);
    assert.match(again, new RegExp(`; secret read from ${secretFile.replaceAll('.', '\\.')}$`));
  });

  test('PHONE_VERIFY_SECRET: said so, its value never; carriers with accounts and numbers still on the outbox are named; PUBLIC_URL is where the dashboard is', async () => {
    const { env } = fresh();
    const ws = createWorkspace(env);
    const account = cliJson<{ id: string }>(twilioArgs(ws), env);
    cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156', '--carrier', account.id], env);
    cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570157'], env);
    const { url, first, all } = await firstLogLine({ ...env, PUBLIC_URL: 'https://verify.example.com/' });
    const msg = msgOf(first);
    assert.match(
      msg,
      new RegExp(
        `listening at ${url}: dashboard https://verify\\.example\\.com/dashboard, API docs https://verify\\.example\\.com/docs;`,
      ),
    );
    assert.match(
      msg,
      /; delivery: twilio \(1 account\), development outbox for 1 number without a carrier \(codes reach no phone\);/,
    );
    assert.match(msg, /; secret from PHONE_VERIFY_SECRET$/);
    assert.equal(all.includes(TEST_SECRET), false);
  });

  test('PostgreSQL: the host and database, never the user or the password of DATABASE_URL', {
    skip: TEST_STORE !== 'postgres' && 'PostgreSQL only',
  }, async () => {
    const { env } = fresh();
    // Trust authentication ignores the password, so the process starts with it in its URL.
    const withPassword = env.DATABASE_URL?.replace(
      'postgres://postgres@',
      'postgres://postgres:hunter2-secret@',
    );
    assert.ok(withPassword?.includes('hunter2-secret'));
    const { first, all } = await firstLogLine({ ...env, DATABASE_URL: withPassword as string });
    assert.match(msgOf(first), /; store postgres 127\.0\.0\.1:5432\/pv_test_\w+;/);
    assert.equal(all.includes('hunter2-secret'), false);
  });
});
