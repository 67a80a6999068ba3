// The CLI of test mode, through the real built CLI: `key create --mode live|test` (default live; any other value,
// odd Unicode or a huge one, is a one-line usage error that echoes nothing back), `key list` with each key's mode,
// and `test-number add/list/remove` with help, examples, --json and one-line errors.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCli, runCliAsync } from '../helpers/process.js';

type KeyRecord = { id: string; key?: string; mode: string; prefix: string };
type TestNumber = { phone: string; code: string; created_at: string };

describe('CLI: test mode', () => {
  const { env } = cliSuiteEnv();
  let ws = '';

  before(() => {
    ws = createWorkspace(env);
  });

  test('key create --mode test makes a pv_test_ key; without --mode, or with live, a pv_live_ one', () => {
    const testKey = jsonOf<KeyRecord>(
      runCli(['key', 'create', '--workspace', ws, '--name', 'ci', '--mode', 'test', '--json'], env),
    );
    assert.match(String(testKey.key), /^pv_test_[0-9A-Za-z]{38}$/);
    assert.equal(testKey.mode, 'test');
    assert.ok(testKey.prefix.startsWith('pv_test_'));
    const plain = cliJson<KeyRecord>(['key', 'create', '--workspace', ws, '--name', 'web'], env);
    assert.match(String(plain.key), /^pv_live_/);
    assert.equal(plain.mode, 'live');
    const live = cliJson<KeyRecord>(
      ['key', 'create', '--workspace', ws, '--name', 'api', '--mode', 'live'],
      env,
    );
    assert.equal(live.mode, 'live');

    const listed = cliJson<KeyRecord[]>(['key', 'list', '--workspace', ws], env);
    assert.deepEqual(
      listed.map((k) => [k.id, k.mode]).sort(),
      [
        [testKey.id, 'test'],
        [plain.id, 'live'],
        [live.id, 'live'],
      ].sort(),
    );
    const table = runCli(['key', 'list', '--workspace', ws], env);
    assert.match(table.stdout, /\bmode\b/);
    assert.match(table.stdout, new RegExp(`${testKey.id}.*\\btest\\b`));
  });

  test('--mode with any other value is a one-line usage error, and no key is made', async () => {
    const before = cliJson<KeyRecord[]>(['key', 'list', '--workspace', ws], env).length;
    const values = ['TEST', 'prod', '', 'tést', 'ｔｅｓｔ', 'test\u202e', `test${'x'.repeat(5000)}`];
    const results = await Promise.all(
      values.map((mode) =>
        runCliAsync(['key', 'create', '--workspace', ws, '--name', 'bad', '--mode', mode, '--json'], env),
      ),
    );
    for (const [i, result] of results.entries()) {
      const problem = assertCleanFailure(result, /--mode must be one of live, test/);
      assert.equal(result.status, 2, JSON.stringify(values[i]?.slice(0, 10)));
      assert.equal(problem?.code, 'invalid_usage');
      assert.equal(result.stderr.includes('x'.repeat(50)), false, 'the value is not echoed back');
    }
    assert.equal(cliJson<KeyRecord[]>(['key', 'list', '--workspace', ws], env).length, before);
  });

  test('test-number add, list and remove, with --json', () => {
    const added = jsonOf<TestNumber>(
      runCli(
        ['test-number', 'add', '--workspace', ws, '--phone', '+61491570123', '--code', '123456', '--json'],
        env,
      ),
    );
    assert.deepEqual({ phone: added.phone, code: added.code }, { phone: '+61491570123', code: '123456' });
    assert.match(added.created_at, TIMESTAMP);
    const list = jsonOf<TestNumber[]>(runCli(['test-number', 'list', '--workspace', ws, '--json'], env));
    assert.deepEqual(list, [added]);
    const table = runCli(['test-number', 'list', '--workspace', ws], env);
    assert.match(table.stdout, /\+61491570123\s+123456/);
    const removed = jsonOf<TestNumber>(
      runCli(['test-number', 'remove', '--workspace', ws, '--phone', '+61491570123', '--json'], env),
    );
    assert.equal(removed.phone, '+61491570123');
    assert.deepEqual(cliJson<TestNumber[]>(['test-number', 'list', '--workspace', ws], env), []);
  });

  test('test-number errors are one line: bad numbers, bad codes, a duplicate, an unknown one, a missing option', async () => {
    cliJson(['test-number', 'add', '--workspace', ws, '--phone', '+61491570124', '--code', '4242'], env);
    const cases: [string[], RegExp][] = [
      [['add', '--workspace', ws, '--phone', 'junk', '--code', '1234'], /E\.164|phone/i],
      [['add', '--workspace', ws, '--phone', `+61${'4'.repeat(500)}`, '--code', '1234'], /phone/i],
      [
        ['add', '--workspace', ws, '--phone', '+61491570125', '--code', '12a4'],
        /code: must be 4 to 8 digits/,
      ],
      [
        ['add', '--workspace', ws, '--phone', '+61491570125', '--code', '١٢٣٤'],
        /code: must be 4 to 8 digits/,
      ],
      [['add', '--workspace', ws, '--phone', '+61491570124', '--code', '1234'], /already/],
      [['add', '--workspace', ws, '--phone', '+61491570125'], /--code is required/],
      [
        ['add', '--workspace', 'ws_\u0001', '--phone', '+61491570125', '--code', '1234'],
        /control characters/,
      ],
      [['remove', '--workspace', ws, '--phone', '+61491570199'], /not a test number/],
      [['list', '--workspace', 'ws_nope'], /No workspace/],
    ];
    const results = await Promise.all(
      cases.map(([args]) => runCliAsync(['test-number', ...args, '--json'], env)),
    );
    for (const [i, result] of results.entries()) assertCleanFailure(result, cases[i]?.[1] ?? /./);
  });

  test('test-number has its group help and each command its example', async () => {
    const group = await runCliAsync(['test-number'], env);
    assert.equal(group.status, 0, group.stderr);
    for (const name of ['add', 'list', 'remove'])
      assert.match(group.stdout, new RegExp(`test-number ${name}`));
    const help = await runCliAsync(['test-number', 'add', '--help'], env);
    assert.equal(help.status, 0, help.stderr);
    assert.match(
      help.stdout,
      /phone-verify test-number add --workspace ws_… --phone \+61491570123 --code 123456/,
    );
    const keyHelp = await runCliAsync(['key', 'create', '--help'], env);
    assert.match(keyHelp.stdout, /--mode/);
  });
});
