// Operator interface, `carrier add`, `carrier list` and `number add … --carrier`, driven through the real built
// CLI on a fresh store. Credentials go in; no command ever prints one back.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { SMPP, TELNYX, TWILIO, VONAGE } from '../carriers/fixtures.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCli } from '../helpers/process.js';

const SECRETS = [
  TWILIO.authToken,
  TELNYX.apiKey,
  VONAGE.apiSecret,
  VONAGE.signatureSecret,
  VONAGE.privateKey.split('\n')[1] ?? VONAGE.privateKey,
  SMPP.password,
];

function assertNoSecret(output: string): void {
  for (const secret of SECRETS) assert.equal(output.includes(secret), false, `printed a secret: ${output}`);
}

const twilioArgs = (ws: string) => [
  'carrier',
  'add',
  '--workspace',
  ws,
  '--type',
  'twilio',
  '--account-sid',
  TWILIO.accountSid,
  '--auth-token',
  TWILIO.authToken,
];

describe('CLI: carrier accounts', () => {
  const { dir, env } = cliSuiteEnv();
  let ws = '';
  let keyFile = '';

  before(() => {
    ws = createWorkspace(env);
    keyFile = join(dir, 'vonage-private.key');
    writeFileSync(keyFile, VONAGE.privateKey, { mode: 0o600 });
  });

  test('carrier add --json prints exactly { id, type, created_at } and no secret', () => {
    const result = runCli(
      [...twilioArgs(ws), '--base-url', 'https://api.dublin.ie1.twilio.com', '--json'],
      env,
    );
    const account = jsonOf<Record<string, unknown>>(result);
    assert.deepEqual(Object.keys(account).sort(), ['created_at', 'id', 'type']);
    assert.match(String(account.id), /^car_[0-9A-Za-z]{24}$/);
    assert.equal(account.type, 'twilio');
    assert.match(String(account.created_at), TIMESTAMP);
    assertNoSecret(result.stdout + result.stderr);
  });

  test('without --json: human-readable lines, still no secret', () => {
    const result = runCli(twilioArgs(ws), env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^id\s+car_/m);
    assert.match(result.stdout, /^type\s+twilio$/m);
    assertNoSecret(result.stdout + result.stderr);
  });

  test('telnyx, vonage (key from --private-key-file) and smpp accounts are added with their options', () => {
    const cases = [
      [
        'telnyx',
        [
          '--api-key',
          TELNYX.apiKey,
          '--connection-id',
          TELNYX.connectionId,
          '--public-key',
          TELNYX.publicKey,
        ],
      ],
      [
        'vonage',
        [
          '--api-key',
          VONAGE.apiKey,
          '--api-secret',
          VONAGE.apiSecret,
          '--application-id',
          VONAGE.applicationId,
          '--private-key-file',
          keyFile,
          '--signature-secret',
          VONAGE.signatureSecret,
        ],
      ],
      [
        'smpp',
        [
          '--host',
          SMPP.host,
          '--port',
          String(SMPP.port),
          '--system-id',
          SMPP.systemId,
          '--password',
          SMPP.password,
        ],
      ],
    ] as const;
    for (const [type, options] of cases) {
      const result = runCli(['carrier', 'add', '--workspace', ws, '--type', type, ...options, '--json'], env);
      assert.equal(jsonOf<{ type: string }>(result).type, type);
      assertNoSecret(result.stdout + result.stderr);
    }
  });

  test('carrier list --json: every account of the workspace as { id, type, created_at }, no secret', () => {
    const result = runCli(['carrier', 'list', '--workspace', ws, '--json'], env);
    const list = jsonOf<Record<string, unknown>[]>(result);
    assert.deepEqual(
      list.map((a) => a.type),
      ['twilio', 'twilio', 'telnyx', 'vonage', 'smpp'],
    );
    for (const a of list) assert.deepEqual(Object.keys(a).sort(), ['created_at', 'id', 'type']);
    assertNoSecret(result.stdout + result.stderr);
    const table = runCli(['carrier', 'list', '--workspace', ws], env);
    assert.match(table.stdout, /^id\s+type\s+created_at$/m);
    assertNoSecret(table.stdout);
  });

  test('refusals name the option to fix, echo no secret and add nothing', () => {
    const before = cliJson<unknown[]>(['carrier', 'list', '--workspace', ws], env).length;
    const missing = runCli(
      ['carrier', 'add', '--workspace', ws, '--type', 'twilio', '--account-sid', TWILIO.accountSid, '--json'],
      env,
    );
    assertCleanFailure(missing, /--auth-token: is required for a twilio account/);
    const foreign = runCli([...twilioArgs(ws), '--api-secret', VONAGE.apiSecret, '--json'], env);
    assertCleanFailure(foreign, /--api-secret: does not apply to a twilio account/);
    assertNoSecret(foreign.stderr);
    assertCleanFailure(
      runCli([...twilioArgs(ws), '--base-url', 'ftp://x.test', '--json'], env),
      /--base-url/,
    );
    assertCleanFailure(
      runCli(['carrier', 'add', '--workspace', ws, '--type', 'carrier-pigeon', '--json'], env),
      /--type: must be one of twilio, telnyx, vonage, smpp/,
    );
    assertCleanFailure(
      runCli(
        [
          'carrier',
          'add',
          '--workspace',
          ws,
          '--type',
          'vonage',
          '--private-key-file',
          join(dir, 'missing.key'),
          '--json',
        ],
        env,
      ),
      /--private-key-file: cannot read .*ENOENT/,
    );
    assertCleanFailure(runCli([...twilioArgs('ws_nope'), '--json'], env), /ws_nope/);
    assert.equal(cliJson<unknown[]>(['carrier', 'list', '--workspace', ws], env).length, before);
  });

  test('number add --carrier ties the number to the account; carrier_id shows in the number view', () => {
    const account = cliJson<{ id: string }>(twilioArgs(ws), env);
    const n = cliJson<Record<string, unknown>>(
      ['number', 'add', '--workspace', ws, '--number', '+61491570156', '--carrier', account.id],
      env,
    );
    assert.deepEqual(Object.keys(n).sort(), ['carrier_id', 'country', 'id', 'number', 'type']);
    assert.equal(n.carrier_id, account.id);
    const list = cliJson<Record<string, unknown>[]>(['number', 'list', '--workspace', ws], env);
    assert.deepEqual(
      list.map((x) => [x.number, x.carrier_id]),
      [['+61491570156', account.id]],
    );
    assert.match(
      runCli(['number', 'list', '--workspace', ws], env).stdout,
      new RegExp(`\\+61491570156.*${account.id}`),
    );
  });

  test('number add --carrier with another workspace account (or an unknown one) fails and adds nothing', () => {
    const other = createWorkspace(env, 'Globex');
    const foreign = cliJson<{ id: string }>(twilioArgs(ws), env);
    for (const carrier of [foreign.id, 'car_000000000000000000000000']) {
      assertCleanFailure(
        runCli(
          ['number', 'add', '--workspace', other, '--number', '+61491570157', '--carrier', carrier, '--json'],
          env,
        ),
        new RegExp(`No carrier account ${carrier}`),
      );
    }
    assert.deepEqual(cliJson<unknown[]>(['number', 'list', '--workspace', other], env), []);
  });
});
