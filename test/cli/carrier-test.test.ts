// `phone-verify carrier test`, through the real built CLI against the carriers' fakes: exit 0 and the outcome
// when the carrier takes the credentials; exit 1 with the one-line reason on stderr (and, with --json, the one
// problem value on stdout) when it refuses them or cannot be reached; usage errors for missing or odd options;
// not found for another workspace's account; never a secret printed. The audit trail names the operator.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startRecordingServer } from '../fakes/recording-server.js';
import { type SmscHandle, startSmsc } from '../fakes/smsc-process.js';
import { startFakeTelnyx } from '../fakes/telnyx.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import { startFakeVonage } from '../fakes/vonage.js';
import { TELNYX, TWILIO, VONAGE, VONAGE_PUBLIC_KEY } from '../helpers/carrier-fixtures.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCliAsync } from '../helpers/process.js';

const SECRETS = [TWILIO.authToken, TELNYX.apiKey, VONAGE.apiSecret, 'smsc-pass-s3cret', 'wrong-token-s3cret'];
const assertNoSecret = (output: string) => {
  for (const secret of SECRETS) assert.equal(output.includes(secret), false, `printed a secret: ${output}`);
};

describe('CLI: carrier test', () => {
  const { env } = cliSuiteEnv();
  let ws = '';
  let other = '';
  let twilio: TwilioFake;
  let smsc: SmscHandle;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    ws = createWorkspace(env);
    other = createWorkspace(env, 'Globex');
    twilio = await startTwilioFake({ ...TWILIO, friendlyName: 'Acme Verify' });
    smsc = await startSmsc([{ systemId: 'acme', password: 'smsc-pass-s3cret' }]);
    closers.push(twilio.close, () => smsc.close());
  });
  after(() => Promise.all(closers.map((close) => close())));

  const add = (workspace: string, type: string, options: string[]) =>
    cliJson<{ id: string }>(['carrier', 'add', '--workspace', workspace, '--type', type, ...options], env).id;
  const addTwilio = (workspace = ws, token = TWILIO.authToken, base = twilio.baseUrl) =>
    add(workspace, 'twilio', ['--account-sid', TWILIO.accountSid, '--auth-token', token, '--base-url', base]);
  const testOf = (account: string, ...more: string[]) =>
    runCliAsync(['carrier', 'test', '--workspace', ws, '--account', account, ...more], env);

  test('ok: exit 0 and { id, type, outcome, detail, tested_at }, recorded as the operator', async () => {
    const id = addTwilio();
    const result = await testOf(id, '--json');
    const tested = jsonOf<Record<string, unknown>>(result);
    assert.deepEqual(Object.keys(tested).sort(), ['detail', 'id', 'outcome', 'tested_at', 'type']);
    assert.deepEqual([tested.id, tested.type, tested.outcome], [id, 'twilio', 'ok']);
    assert.equal(tested.detail, 'Twilio: account "Acme Verify", active');
    assert.match(String(tested.tested_at), TIMESTAMP);
    assertNoSecret(result.stdout + result.stderr);

    const plain = await testOf(id);
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /^outcome\s+ok$/m);
    assert.match(plain.stdout, /^detail\s+Twilio: account "Acme Verify", active$/m);

    const entries = cliJson<Record<string, unknown>[]>(
      ['audit', 'list', '--workspace', ws, '--action', 'carrier.tested'],
      env,
    );
    assert.equal(entries.length, 2);
    assert.equal(entries[0]?.actor, 'cli');
    assert.deepEqual(entries[0]?.details, { type: 'twilio', outcome: 'ok' });
  });

  test("refused: exit 1, the carrier's words on one line of stderr; --json gives the problem value", async () => {
    const id = addTwilio(ws, 'wrong-token-s3cret');
    const plain = await testOf(id);
    assertCleanFailure(plain, /^error: Twilio HTTP 401 20003: Authenticate\n$/);
    assert.equal(plain.stdout, '');
    const json = await testOf(id, '--json');
    const problem = assertCleanFailure(json, /Authenticate/);
    assert.equal(problem?.code, 'credentials_refused');
    assert.equal(problem?.exit_code, 1);
    assertNoSecret(plain.stdout + plain.stderr + json.stdout + json.stderr);
  });

  test('unreachable: exit 1, code carrier_unreachable', async () => {
    // A port nothing listens on (not 9 and its like: fetch refuses those "bad ports" before connecting).
    const closed = await startRecordingServer(() => undefined);
    await closed.close();
    const id = addTwilio(ws, TWILIO.authToken, closed.baseUrl);
    const problem = assertCleanFailure(
      await testOf(id, '--json'),
      /^error: Twilio unreachable: ECONNREFUSED\n$/,
    );
    assert.equal(problem?.code, 'carrier_unreachable');
  });

  test('Telnyx, Vonage and SMPP accounts are tested the same way', async () => {
    const telnyx = await startFakeTelnyx(TELNYX.apiKey);
    const vonage = await startFakeVonage({
      applicationId: VONAGE.applicationId,
      publicKey: VONAGE_PUBLIC_KEY,
      apiKey: VONAGE.apiKey,
      apiSecret: VONAGE.apiSecret,
    });
    closers.push(telnyx.close, vonage.close);
    const accounts = {
      telnyx: add(ws, 'telnyx', ['--api-key', TELNYX.apiKey, '--base-url', telnyx.baseUrl]),
      vonage: add(ws, 'vonage', [
        '--api-key',
        VONAGE.apiKey,
        '--api-secret',
        VONAGE.apiSecret,
        '--application-id',
        VONAGE.applicationId,
        '--private-key-file',
        await keyFile(),
        '--signature-secret',
        VONAGE.signatureSecret,
        '--base-url',
        vonage.url,
      ]),
      smpp: add(ws, 'smpp', [
        '--host',
        '127.0.0.1',
        '--port',
        String(smsc.port),
        '--system-id',
        'acme',
        '--password',
        'smsc-pass-s3cret',
      ]),
      smppWrong: add(ws, 'smpp', [
        '--host',
        '127.0.0.1',
        '--port',
        String(smsc.port),
        '--system-id',
        'acme',
        '--password',
        'wrong-token-s3cret',
      ]),
    };
    const details = {
      telnyx: 'Telnyx: balance 300.00 USD, available credit 400.00',
      vonage: 'Vonage: balance 10.28 EUR, auto-reload off',
      smpp: `SMPP: bound to SMSC 127.0.0.1:${smsc.port} as a transceiver (its system id "smsc-sim"), then unbound`,
    };
    for (const type of ['telnyx', 'vonage', 'smpp'] as const) {
      const result = await testOf(accounts[type], '--json');
      const tested = jsonOf<Record<string, unknown>>(result);
      assert.deepEqual([tested.outcome, tested.detail], ['ok', details[type]], type);
      assertNoSecret(result.stdout + result.stderr);
    }
    const refused = await testOf(accounts.smppWrong, '--json');
    assert.equal(assertCleanFailure(refused, /ESME_RINVPASWD/)?.code, 'credentials_refused');
    assertNoSecret(refused.stdout + refused.stderr);
    const state = await smsc.state();
    assert.equal(state.submits.length, 0);
    assert.equal(state.unbinds.length, 1);
  });

  test("another workspace's account, an unknown one and odd ids: not found or a usage error, nothing tested", async () => {
    const theirs = addTwilio(other);
    const before = twilio.requests.length;
    const foreign = await testOf(theirs, '--json');
    assert.equal(assertCleanFailure(foreign, /No carrier account/)?.code, 'not_found');
    assert.equal(
      assertCleanFailure(await testOf('car_0000000000000000000000000', '--json'), /No carrier account/)?.code,
      'not_found',
    );
    for (const [odd, reason] of [
      ['car_\u0001', /--account: must not hold control characters/],
      ['c'.repeat(5000), /--account: at most 100 characters/],
    ] as const) {
      const result = await testOf(odd, '--json');
      assert.equal(assertCleanFailure(result, reason)?.code, 'invalid_usage');
      assert.equal(result.status, 2);
    }
    const odd = await testOf('car_é🙂\u202e', '--json');
    assert.equal(assertCleanFailure(odd, /No such carrier account/)?.code, 'not_found');
    const missing = await runCliAsync(['carrier', 'test', '--workspace', ws, '--json'], env);
    assert.equal(assertCleanFailure(missing, /--account is required/)?.code, 'invalid_usage');
    const noWorkspace = await runCliAsync(['carrier', 'test', '--account', theirs], env);
    assertCleanFailure(noWorkspace, /--workspace is required/);
    assert.equal(twilio.requests.length, before);
  });

  test('--help shows the usage, what each carrier calls, and an example', async () => {
    const help = await runCliAsync(['carrier', 'test', '--help'], env);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /carrier test --workspace WS_ID --account ACCOUNT_ID/);
    assert.match(help.stdout, /SMPP: binds, then unbinds/);
    assert.match(help.stdout, /phone-verify carrier test --workspace ws_… --account car_…/);
  });
});

async function keyFile(): Promise<string> {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const path = join(mkdtempSync(join(tmpdir(), 'pv-key-')), 'vonage.key');
  writeFileSync(path, VONAGE.privateKey, { mode: 0o600 });
  return path;
}
