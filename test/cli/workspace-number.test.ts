// Operator interface, CLI commands: `workspace create`, `workspace list`, `number add`, `number list`,
// driven through the real built CLI (`node bin/phone-verify.js …`) on a fresh SQLite file.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { freshEnv } from '../helpers/cli-env.js';
import { type CliResult, cliJson, runCli } from '../helpers/process.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A failed command: non-zero exit, exactly one line on stderr (no stack trace), nothing on stdout. */
function assertCleanFailure(result: CliResult, reason: RegExp): void {
  assert.notEqual(result.status, 0, `expected a failure, got ${result.status}: ${result.stdout}`);
  assert.notEqual(result.status, null);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^[^\n]+\n$/, `stderr is not one line: ${JSON.stringify(result.stderr)}`);
  assert.doesNotMatch(result.stderr, /\bat .+:\d+:\d+/);
  assert.match(result.stderr, reason);
}

/** With --json, stdout is exactly one JSON value: the whole of it parses. */
function jsonOf<T>(result: CliResult): T {
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

describe('CLI: workspace and number commands', () => {
  const { dir, env } = freshEnv();
  let wsId = '';

  before(() => {
    wsId = cliJson<{ id: string }>(['workspace', 'create', '--name', 'Acme'], env).id;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('workspace create --name --json prints exactly { id, name, created_at }', () => {
    const ws = jsonOf<Record<string, unknown>>(
      runCli(['workspace', 'create', '--name', 'Globex', '--json'], env),
    );
    assert.deepEqual(Object.keys(ws).sort(), ['created_at', 'id', 'name']);
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

  test('workspace list --json is an array of { id, name, created_at } holding every workspace', () => {
    const list = jsonOf<Record<string, unknown>[]>(runCli(['workspace', 'list', '--json'], env));
    assert.ok(Array.isArray(list));
    for (const ws of list) assert.deepEqual(Object.keys(ws).sort(), ['created_at', 'id', 'name']);
    assert.ok(list.some((w) => w.id === wsId && w.name === 'Acme'));
    assert.deepEqual(list.map((w) => w.name).sort(), ['Acme', 'Globex', 'Initech']);
  });

  test('number add --json prints exactly { id, number, type, country }, the type detected (AU mobile)', () => {
    const n = jsonOf<Record<string, unknown>>(
      runCli(['number', 'add', '--workspace', wsId, '--number', '+61491570156', '--json'], env),
    );
    assert.deepEqual(Object.keys(n).sort(), ['country', 'id', 'number', 'type']);
    const { id, ...rest } = n;
    assert.match(String(id), /^num_[0-9A-Za-z]{24}$/);
    assert.deepEqual(rest, {
      number: '+61491570156',
      type: 'mobile',
      country: 'AU',
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
    const us = cliJson(
      ['number', 'add', '--workspace', wsId, '--number', '+12015550123', '--type', 'mobile'],
      env,
    );
    assert.deepEqual(
      { number: us.number, type: us.type, country: us.country },
      {
        number: '+12015550123',
        type: 'mobile',
        country: 'US',
      },
    );
    const ca = cliJson(
      ['number', 'add', '--workspace', wsId, '--number', '+14165550123', '--type', 'landline'],
      env,
    );
    assert.deepEqual(
      { number: ca.number, type: ca.type, country: ca.country },
      {
        number: '+14165550123',
        type: 'landline',
        country: 'CA',
      },
    );
  });

  test('number list --workspace --json is an array of { id, number, type, country } of that workspace', () => {
    const list = jsonOf<Record<string, unknown>[]>(
      runCli(['number', 'list', '--workspace', wsId, '--json'], env),
    );
    for (const n of list) assert.deepEqual(Object.keys(n).sort(), ['country', 'id', 'number', 'type']);
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
