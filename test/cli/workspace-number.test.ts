// Operator interface, CLI commands: `workspace create`, `workspace list`, `number add`, `number list`,
// driven through the real built CLI (`node bin/phone-verify.js …`) on a fresh SQLite file.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { twilioServiceSid } from '../../src/twilio-api/sids.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCli } from '../helpers/process.js';

describe('CLI: workspace and number commands', () => {
  const { env } = cliSuiteEnv();
  let wsId = '';

  before(() => {
    wsId = createWorkspace(env);
  });

  test('workspace create --name --json prints exactly { id, name, created_at, twilio_service_sid }', () => {
    const ws = jsonOf<Record<string, unknown>>(
      runCli(['workspace', 'create', '--name', 'Globex', '--json'], env),
    );
    // twilio_service_sid extends the spec's shape: the Service SID of the Twilio-compatible API.
    assert.deepEqual(Object.keys(ws).sort(), ['created_at', 'id', 'name', 'twilio_service_sid']);
    assert.equal(ws.twilio_service_sid, twilioServiceSid(String(ws.id)));
    assert.match(String(ws.id), /^ws_[0-9A-Za-z]{24}$/);
    assert.equal(ws.name, 'Globex');
    assert.match(String(ws.created_at), TIMESTAMP);
  });

  test('workspace create without --json prints human-readable lines, not JSON', () => {
    const result = runCli(['workspace', 'create', '--name', 'Initech'], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^id\s+ws_/m);
    assert.match(result.stdout, /^name\s+Initech$/m);
    assert.throws(() => JSON.parse(result.stdout));
  });

  test('workspace list --json is an array of { id, name, created_at, twilio_service_sid } holding every workspace', () => {
    const list = jsonOf<Record<string, unknown>[]>(runCli(['workspace', 'list', '--json'], env));
    assert.ok(Array.isArray(list));
    for (const ws of list) {
      assert.deepEqual(Object.keys(ws).sort(), ['created_at', 'id', 'name', 'twilio_service_sid']);
      assert.equal(ws.twilio_service_sid, twilioServiceSid(String(ws.id)));
    }
    assert.ok(list.some((w) => w.id === wsId && w.name === 'Acme'));
    assert.deepEqual(list.map((w) => w.name).sort(), ['Acme', 'Globex', 'Initech']);
  });

  test('number add --json prints exactly { id, number, type, country, carrier_id }, the type detected (AU mobile)', () => {
    const n = jsonOf<Record<string, unknown>>(
      runCli(['number', 'add', '--workspace', wsId, '--number', '+61491570156', '--json'], env),
    );
    // carrier_id extends the spec's shape: null is the development provider (test/cli/carriers.test.ts).
    assert.deepEqual(Object.keys(n).sort(), ['carrier_id', 'country', 'id', 'number', 'type']);
    const { id, ...rest } = n;
    assert.match(String(id), /^num_[0-9A-Za-z]{24}$/);
    assert.deepEqual(rest, {
      number: '+61491570156',
      type: 'mobile',
      country: 'AU',
      carrier_id: null,
    });
  });

  test('number add detects landline, local_rate (13/1300) and toll_free AU numbers without --type', () => {
    const cases = [
      ['+61298765432', 'landline'],
      ['+611300123456', 'local_rate'],
      ['+611800123456', 'toll_free'],
    ] as const;
    for (const [number, type] of cases) {
      const n = cliJson(['number', 'add', '--workspace', wsId, '--number', number], env);
      assert.deepEqual(
        { number: n.number, type: n.type, country: n.country },
        { number, type, country: 'AU' },
      );
    }
  });

  test('number add of a US or CA number without --type fails and says to pass --type', () => {
    for (const number of ['+12015550123', '+14165550123']) {
      const result = runCli(['number', 'add', '--workspace', wsId, '--number', number, '--json'], env);
      assertCleanFailure(result, /--type/);
    }
    // Nothing was added by the refused commands.
    const numbers = cliJson<{ number: string }[]>(['number', 'list', '--workspace', wsId], env);
    assert.equal(
      numbers.some((n) => n.number.startsWith('+1')),
      false,
    );
  });

  test('number add of a US/CA number with --type takes the given type', () => {
    for (const [number, type, country] of [
      ['+12015550123', 'mobile', 'US'],
      ['+14165550123', 'landline', 'CA'],
    ] as const) {
      const n = cliJson(['number', 'add', '--workspace', wsId, '--number', number, '--type', type], env);
      assert.deepEqual({ number: n.number, type: n.type, country: n.country }, { number, type, country });
    }
  });

  test('number list --workspace --json is an array of { id, number, type, country, carrier_id } of that workspace', () => {
    const list = jsonOf<Record<string, unknown>[]>(
      runCli(['number', 'list', '--workspace', wsId, '--json'], env),
    );
    for (const n of list)
      assert.deepEqual(Object.keys(n).sort(), ['carrier_id', 'country', 'id', 'number', 'type']);
    assert.deepEqual(list.map((n) => `${n.number} ${n.type} ${n.country}`).sort(), [
      '+12015550123 mobile US',
      '+14165550123 landline CA',
      '+611300123456 local_rate AU',
      '+611800123456 toll_free AU',
      '+61298765432 landline AU',
      '+61491570156 mobile AU',
    ]);
  });
});
