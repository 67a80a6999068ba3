// Persistence across server restarts on the same database: verifications, codes (read from the outbox with the
// CLI) and keys survive a SIGTERM and a new start; with PHONE_VERIFY_SECRET unset, the generated secret file
// in the data directory is created once and kept.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freshEnv } from '../helpers/cli-env.js';
import { callServer, seedWithCli } from '../helpers/cli-setup.js';
import { TEST_STORE } from '../helpers/database.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';

function api(url: string, key: string) {
  const call = (method: string, path: string, body?: unknown) => callServer(url, key, method, path, body);
  return {
    ping: () => call('GET', '/v1/ping'),
    send: (body: unknown) => call('POST', '/v1/otp/send', body),
    check: (body: unknown) => call('POST', '/v1/otp/check', body),
    get: (id: string) => call('GET', `/v1/otp/${id}`),
  };
}

/** The code of the newest SMS to a number, read with the CLI as an operator would. */
function smsCode(phone: string, env: Record<string, string>): { code: string; verificationId: string } {
  const [message] = cliJson<{ body: string; channel: string; verification_id: string }[]>(
    ['outbox', '--to', phone, '--limit', '1'],
    env,
  );
  assert.ok(message, `no message to ${phone}`);
  assert.equal(message.channel, 'sms');
  const code = /(\d+)\s*$/.exec(message.body)?.[1];
  assert.ok(code, `no code in ${message.body}`);
  return { code, verificationId: message.verification_id };
}

describe('persistence: a restart on the same database', () => {
  const { dir, env } = freshEnv();
  const servers: ServerProcess[] = [];
  let key = '';
  let ws = '';
  let verificationId = '';
  let restarted: ServerProcess;

  before(async () => {
    const first = await startServer(env);
    servers.push(first);
    ({ ws, key } = seedWithCli(env));
    const sent = await api(first.url, key).send({ phone: '+61412345678', channel: 'sms' });
    assert.equal(sent.status, 201);
    verificationId = String(sent.body.id);
    assert.equal(await first.stop('SIGTERM'), 0);
    restarted = await startServer(env);
    servers.push(restarted);
  });
  after(async () => {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a verification sent before the restart is still there, pending', async () => {
    const got = await api(restarted.url, key).get(verificationId);
    assert.equal(got.status, 200);
    assert.equal(got.body.id, verificationId);
    assert.equal(got.body.status, 'pending');
    assert.equal(got.body.phone, '+61412345678');
    assert.equal(got.body.attempts, 0);
  });

  test('keys still work after the restart', async () => {
    const ping = await api(restarted.url, key).ping();
    assert.equal(ping.status, 200);
    assert.equal(ping.body.workspace_id, ws);
  });

  test('the code read from the outbox (CLI outbox --to) still verifies after the restart', async () => {
    const { code, verificationId: fromOutbox } = smsCode('+61412345678', env);
    assert.equal(fromOutbox, verificationId);
    const checked = await api(restarted.url, key).check({ verification_id: verificationId, code });
    assert.equal(checked.status, 200);
    assert.equal(checked.body.verified, true);
    assert.equal(checked.body.status, 'verified');
  });
});

describe('persistence: the generated server secret (PHONE_VERIFY_SECRET unset)', () => {
  const { dir, env: withSecret } = freshEnv();
  // SQLite: the default data directory, the database file's folder. PostgreSQL has no file: DATA_DIR says where.
  const env: Record<string, string> =
    TEST_STORE === 'sqlite'
      ? { DATABASE_URL: withSecret.DATABASE_URL as string }
      : { DATABASE_URL: withSecret.DATABASE_URL as string, DATA_DIR: dir };
  const secretFile = join(dir, 'phone-verify.secret');
  const servers: ServerProcess[] = [];

  before(() => {
    // Unset, not merely left out of `env`: the server and CLI processes inherit process.env.
    delete process.env.PHONE_VERIFY_SECRET;
  });

  after(async () => {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the first start writes phone-verify.secret (mode 0600) in the data directory (next to the SQLite file by default); a restart keeps it and a code sent before still verifies', async () => {
    assert.equal(existsSync(secretFile), false);
    const first = await startServer(env);
    servers.push(first);
    assert.ok(existsSync(secretFile), 'no secret file after the first start');
    assert.equal(statSync(secretFile).mode & 0o777, 0o600);
    const content = readFileSync(secretFile, 'utf8');
    assert.ok(content.trim().length >= 32, 'the generated secret is too short');

    const { key } = seedWithCli(env);
    const sent = await api(first.url, key).send({ phone: '+61412345678', channel: 'sms' });
    assert.equal(sent.status, 201);
    assert.equal(await first.stop('SIGTERM'), 0);
    assert.equal(readFileSync(secretFile, 'utf8'), content);

    const second = await startServer(env);
    servers.push(second);
    assert.equal(readFileSync(secretFile, 'utf8'), content, 'the restart replaced the secret');
    assert.equal(statSync(secretFile).mode & 0o777, 0o600);

    const { code, verificationId } = smsCode('+61412345678', env);
    assert.equal(verificationId, sent.body.id);
    const checked = await api(second.url, key).check({ verification_id: verificationId, code });
    assert.equal(checked.status, 200);
    assert.deepEqual([checked.body.status, checked.body.verified], ['verified', true]);
  });
});
