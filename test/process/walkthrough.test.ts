// The README's "first five minutes", end to end with real processes: a server, the CLI beside it, HTTP with
// fetch. Each step is a test, in the README's order.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freshEnv } from '../helpers/cli-env.js';
import { type Body, callServer } from '../helpers/cli-setup.js';
import { cliJson, runCli, type ServerProcess, startServer } from '../helpers/process.js';

const ROOT = join(import.meta.dirname, '..', '..');

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

describe('walkthrough: the README first five minutes', () => {
  const { dir, env } = freshEnv();
  let server: ServerProcess;
  let ws = '';
  let key = '';
  let verificationId = '';
  let code = '';

  const call = (method: string, path: string, body?: unknown) =>
    callServer(server.url, key, method, path, body);

  before(async () => {
    server = await startServer(env);
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('1. workspace create --name Acme, then number add +61491570156 (an AU mobile)', () => {
    const workspace = cliJson(['workspace', 'create', '--name', 'Acme'], env);
    assert.equal(workspace.name, 'Acme');
    ws = String(workspace.id);
    const number = cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156'], env);
    assert.deepEqual([number.number, number.type, number.country], ['+61491570156', 'mobile', 'AU']);
  });

  test('2. key create gives a pv_live_ key', () => {
    key = String(cliJson(['key', 'create', '--workspace', ws, '--name', 'backend'], env).key);
    assert.match(key, /^pv_live_/);
  });

  test('3. GET /v1/ping with the key says it works', async () => {
    const ping = await call('GET', '/v1/ping');
    assert.equal(ping.status, 200);
    assert.deepEqual(ping.body, { ok: true, workspace_id: ws, key_name: 'backend', scopes: ['otp'] });
  });

  test('4. POST /v1/otp/send by SMS to the national number "0412 345 678" → 201 pending to +61412345678', async () => {
    const sent = await call('POST', '/v1/otp/send', { phone: '0412 345 678', channel: 'sms' });
    assert.equal(sent.status, 201);
    assert.equal(sent.body.status, 'pending');
    assert.equal(sent.body.phone, '+61412345678');
    assert.equal(sent.body.channel, 'sms');
    assert.equal((sent.body.delivery as Body).ok, true);
    verificationId = String(sent.body.id);
  });

  test('5. outbox --to +61412345678 shows the SMS, from the workspace number, ending in the code', () => {
    const [message] = cliJson<Body[]>(['outbox', '--to', '+61412345678'], env);
    assert.ok(message);
    assert.equal(message.channel, 'sms');
    assert.equal(message.from, '+61491570156');
    assert.equal(message.verification_id, verificationId);
    const match = /^Acme: .*?(\d{6})\s*$/.exec(String(message.body));
    assert.ok(match, `the SMS does not end in a 6-digit code: ${message.body}`);
    code = match[1] as string;
    // The human-readable form the README shows.
    const human = runCli(['outbox', '--to', '+61412345678'], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /sms\s+\+61491570156 -> \+61412345678\n\s+Acme: .*\d{6}\n/);
  });

  test('6. POST /v1/otp/check with that code → verified true', async () => {
    const checked = await call('POST', '/v1/otp/check', { verification_id: verificationId, code });
    assert.equal(checked.status, 200);
    assert.equal(checked.body.id, verificationId);
    assert.equal(checked.body.status, 'verified');
    assert.equal(checked.body.verified, true);
    assert.ok(checked.body.verified_at);
  });

  test('a voice send: the outbox body reads the code digit by digit, twice, and that code verifies', async () => {
    const sent = await call('POST', '/v1/otp/send', { phone: '0412 345 679' });
    assert.equal(sent.status, 201);
    assert.equal(sent.body.channel, 'voice');
    const [message] = cliJson<Body[]>(['outbox', '--to', '+61412345679'], env);
    assert.ok(message);
    assert.equal(message.channel, 'voice');
    assert.equal(message.verification_id, sent.body.id);
    const body = String(message.body);
    // Digits are read one by one: never two digits side by side.
    assert.doesNotMatch(body, /\d\d/);
    const readings = [...body.matchAll(/\d(?:, \d)+/g)].map((m) => m[0].replace(/\D/g, ''));
    assert.equal(readings.length, 2, `expected the code read twice: ${body}`);
    assert.equal(readings[0], readings[1]);
    assert.equal(readings[0]?.length, 6);
    const checked = await call('POST', '/v1/otp/check', { verification_id: sent.body.id, code: readings[0] });
    assert.equal(checked.status, 200);
    assert.equal(checked.body.verified, true);
  });

  test('the README block itself, run by bash with jq (no id pasted by hand), ends in a verified code', {
    skip: !onPath('jq') || !onPath('curl') ? 'needs jq and curl on the PATH' : false,
  }, () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /\*\*From the terminal\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, 'README has the terminal walkthrough');
    // No command holds a placeholder to fill in (the comments show what comes back, with … for ids).
    const commands = block.split('\n').filter((line) => !line.trim().startsWith('#'));
    assert.deepEqual(
      commands.filter((line) => line.includes('…')),
      [],
      'no id is pasted by hand',
    );
    // This server's address, and this Node (the machine's own may be older); otherwise the block as written.
    const script = block
      .replaceAll('http://127.0.0.1:3000', server.url)
      .replaceAll('node bin/phone-verify.js', `"${process.execPath}" bin/phone-verify.js`);
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    const last = result.stdout.trim().split('\n').at(-1) ?? '';
    const checked = JSON.parse(last) as Body;
    assert.equal(checked.verified, true, last);
    assert.equal(checked.status, 'verified');
  });
});
