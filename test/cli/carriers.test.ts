// Operator interface, `carrier add`, `carrier list`, `number add … --carrier`, `carrier rotate`, `carrier remove`
// and `number set-carrier`, driven through the real built CLI on a fresh store. Credentials go in; no command
// ever prints one back.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { createServices } from '../../src/services.js';
import { openStore } from '../../src/store/database.js';
import { TEST_SECRET } from '../helpers/app.js';
import { SMPP, TELNYX, TWILIO, twilioArgs, VONAGE } from '../helpers/carrier-fixtures.js';
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

  test('carrier list --json: every account of the workspace as { id, type, created_at, … }, no secret', () => {
    const result = runCli(['carrier', 'list', '--workspace', ws, '--json'], {
      ...env,
      PUBLIC_URL: 'https://verify.example.com',
    });
    const list = jsonOf<Record<string, unknown>[]>(result);
    assert.deepEqual(
      list.map((a) => a.type),
      ['twilio', 'twilio', 'telnyx', 'vonage', 'smpp'],
    );
    // A superset of { id, type, created_at }: the base URL, the numbers tied to it and the callback URL.
    for (const a of list) {
      assert.deepEqual(Object.keys(a).sort(), [
        'base_url',
        'callback_url',
        'created_at',
        'id',
        'numbers',
        'type',
      ]);
    }
    assert.equal(list[0]?.base_url, 'https://api.dublin.ie1.twilio.com');
    assert.equal(list[1]?.base_url, null);
    assert.equal(list[0]?.callback_url, `https://verify.example.com/webhooks/twilio/${list[0]?.id}`);
    assert.equal(list[4]?.callback_url, null, 'SMPP receipts come over the session: no callback URL');
    assertNoSecret(result.stdout + result.stderr);
    const table = runCli(['carrier', 'list', '--workspace', ws], env);
    assert.match(table.stdout, /^id\s+type\s+numbers\s+base_url\s+callback_url\s+created_at$/m);
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

describe('CLI: carrier rotate, carrier remove and number set-carrier', () => {
  const { env } = cliSuiteEnv();
  let ws = '';

  before(() => {
    ws = createWorkspace(env);
  });

  /** The account's stored credentials, opened as the server would (the CLI never prints them). */
  async function storedCredentials(id: string): Promise<object | undefined> {
    const store = await openStore(env.DATABASE_URL ?? '');
    try {
      const services = createServices({ store, secret: TEST_SECRET, publicUrl: 'http://127.0.0.1' });
      return (await services.carriers.getAccount(id))?.credentials;
    } finally {
      await store.close();
    }
  }

  const numbers = () =>
    cliJson<{ number: string; carrier_id: string | null }[]>(['number', 'list', '--workspace', ws], env);

  test('carrier rotate replaces the credentials, prints the account without a secret, and keeps the base URL', async () => {
    const account = cliJson<{ id: string }>(
      [...twilioArgs(ws), '--base-url', 'https://edge.example.test'],
      env,
    );
    const newToken = 'twilio-auth-token-rotated-by-cli-01';
    const result = runCli(
      [
        'carrier',
        'rotate',
        account.id,
        '--account-sid',
        TWILIO.accountSid,
        '--auth-token',
        newToken,
        '--json',
      ],
      env,
    );
    const rotated = jsonOf<Record<string, unknown>>(result);
    assert.equal(rotated.id, account.id);
    assert.equal(rotated.type, 'twilio');
    assert.equal(rotated.base_url, 'https://edge.example.test');
    assert.equal(result.stdout.includes(newToken), false);
    assertNoSecret(result.stdout + result.stderr);
    assert.deepEqual(await storedCredentials(account.id), { ...TWILIO, authToken: newToken });

    // --base-url "" goes back to the carrier's own API.
    const own = cliJson<{ base_url: string | null }>(
      [
        'carrier',
        'rotate',
        account.id,
        '--account-sid',
        TWILIO.accountSid,
        '--auth-token',
        newToken,
        '--base-url',
        '',
      ],
      env,
    );
    assert.equal(own.base_url, null);
  });

  test('carrier rotate refuses what carrier add refuses, naming the option, and changes nothing', async () => {
    const account = cliJson<{ id: string }>(twilioArgs(ws), env);
    assertCleanFailure(
      runCli(['carrier', 'rotate', account.id, '--account-sid', TWILIO.accountSid, '--json'], env),
      /--auth-token: is required for a twilio account/,
    );
    const foreign = runCli(
      [
        'carrier',
        'rotate',
        account.id,
        '--api-key',
        VONAGE.apiKey,
        '--api-secret',
        VONAGE.apiSecret,
        '--json',
      ],
      env,
    );
    assertCleanFailure(foreign, /does not apply to a twilio account/);
    assertNoSecret(foreign.stderr);
    assertCleanFailure(
      runCli(
        ['carrier', 'rotate', 'car_000000000000000000000000', ...twilioArgs(ws).slice(6), '--json'],
        env,
      ),
      /No carrier account car_000000000000000000000000/,
    );
    const usage = runCli(['carrier', 'rotate', '--json'], env);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /usage: phone-verify carrier rotate CARRIER_ID/);
    assert.deepEqual(await storedCredentials(account.id), TWILIO);
  });

  test('number set-carrier ties a number to an account and back to the development provider (none)', () => {
    const account = cliJson<{ id: string }>(twilioArgs(ws), env);
    cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156'], env);
    const tied = cliJson<Record<string, unknown>>(
      ['number', 'set-carrier', '--workspace', ws, '--number', '+61 491 570 156', '--carrier', account.id],
      env,
    );
    assert.deepEqual(Object.keys(tied).sort(), ['carrier_id', 'country', 'id', 'number', 'type']);
    assert.equal(tied.carrier_id, account.id);
    assert.deepEqual(
      numbers().map((n) => [n.number, n.carrier_id]),
      [['+61491570156', account.id]],
    );
    const listed = cliJson<{ id: string; numbers: string[] }[]>(['carrier', 'list', '--workspace', ws], env);
    assert.deepEqual(listed.find((a) => a.id === account.id)?.numbers, ['+61491570156']);

    const back = cliJson<{ carrier_id: string | null }>(
      ['number', 'set-carrier', '--workspace', ws, '--number', '+61491570156', '--carrier', 'none'],
      env,
    );
    assert.equal(back.carrier_id, null);
    assert.equal(numbers()[0]?.carrier_id, null);
  });

  test("number set-carrier refuses another workspace's account, an unknown number, and changes nothing", () => {
    const other = createWorkspace(env, 'Globex');
    const foreign = cliJson<{ id: string }>(twilioArgs(other), env);
    assertCleanFailure(
      runCli(
        [
          'number',
          'set-carrier',
          '--workspace',
          ws,
          '--number',
          '+61491570156',
          '--carrier',
          foreign.id,
          '--json',
        ],
        env,
      ),
      new RegExp(`No carrier account ${foreign.id} in workspace ${ws}`),
    );
    assertCleanFailure(
      runCli(
        [
          'number',
          'set-carrier',
          '--workspace',
          ws,
          '--number',
          '+61491570999',
          '--carrier',
          'none',
          '--json',
        ],
        env,
      ),
      /No number \+61491570999 in workspace/,
    );
    assertCleanFailure(
      runCli(['number', 'set-carrier', '--workspace', ws, '--number', '+61491570156', '--json'], env),
      /--carrier is required/,
    );
    assert.equal(numbers()[0]?.carrier_id, null);
  });

  test('carrier remove is refused while a number sends through the account, naming it; then removes it', () => {
    const account = cliJson<{ id: string }>(twilioArgs(ws), env);
    cliJson(
      ['number', 'set-carrier', '--workspace', ws, '--number', '+61491570156', '--carrier', account.id],
      env,
    );
    assertCleanFailure(
      runCli(['carrier', 'remove', account.id, '--json'], env),
      new RegExp(`${account.id} still sends from \\+61491570156`),
    );
    const ids = () => cliJson<{ id: string }[]>(['carrier', 'list', '--workspace', ws], env).map((a) => a.id);
    assert.ok(ids().includes(account.id));

    cliJson(
      ['number', 'set-carrier', '--workspace', ws, '--number', '+61491570156', '--carrier', 'none'],
      env,
    );
    const result = runCli(['carrier', 'remove', account.id, '--json'], env);
    const removed = jsonOf<Record<string, unknown>>(result);
    assert.equal(removed.id, account.id);
    assert.equal(removed.type, 'twilio');
    assertNoSecret(result.stdout + result.stderr);
    assert.equal(ids().includes(account.id), false);
    assertCleanFailure(runCli(['carrier', 'remove', account.id, '--json'], env), /No carrier account/);
    const human = runCli(['carrier', 'remove', cliJson<{ id: string }>(twilioArgs(ws), env).id], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^id\s+car_/m);
  });
});
