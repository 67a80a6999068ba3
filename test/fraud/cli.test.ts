// Operator interface, `fraud settings|allow|disallow|blocks|lift` (docs/operations.md "Pumping guard"), through the
// real built CLI on a fresh database (SQLite or PostgreSQL, per TEST_STORE). Bad options are usage errors (exit 2)
// that change nothing; an unknown workspace or range is a failure (exit 1).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { FRAUD_COMMANDS } from '../../src/cli/fraud-commands.js';
import type { Services } from '../../src/services.js';
import { assertCleanFailure, cliSuiteEnv, jsonOf } from '../helpers/cli-setup.js';
import { cliJson, runCli } from '../helpers/process.js';

describe('CLI: fraud', () => {
  const { env } = cliSuiteEnv();
  let ws = '';

  before(() => {
    // A workspace on the guard's defaults (the suite helper raises its range limit for other suites).
    ws = cliJson<{ id: string }>(['workspace', 'create', '--name', 'Acme'], env).id;
  });

  const fraud = (...args: string[]) => runCli(['fraud', ...args], env);
  const settings = (...args: string[]) => fraud('settings', '--workspace', ws, ...args);

  test('settings: the defaults, then the ones given set and the others kept', () => {
    assert.deepEqual(jsonOf(settings('--json')), {
      workspace_id: ws,
      range_limit: 10,
      range_window_seconds: 600,
      block_seconds: 3600,
      conversion_sends: 50,
      conversion_percent: 10,
      country_conversion_sends: 200,
      country_conversion_percent: 5,
      allow: [],
    });
    const set = jsonOf<Record<string, unknown>>(
      settings('--range-limit', '25', '--block-seconds', '7200', '--json'),
    );
    assert.deepEqual(set, {
      workspace_id: ws,
      range_limit: 25,
      range_window_seconds: 600,
      block_seconds: 7200,
      conversion_sends: 50,
      conversion_percent: 10,
      country_conversion_sends: 200,
      country_conversion_percent: 5,
      allow: [],
    });
    assert.deepEqual(jsonOf(settings('--json')), set);
    const human = settings();
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^range_limit\s+25$/m);
    const conversion = jsonOf<Record<string, unknown>>(
      settings('--conversion-sends', '100', '--conversion-percent', '0', '--json'),
    );
    assert.deepEqual(conversion, { ...set, conversion_sends: 100, conversion_percent: 0 });
    settings('--conversion-sends', '50', '--conversion-percent', '10');
    const country = jsonOf<Record<string, unknown>>(
      settings('--country-conversion-sends', '500', '--country-conversion-percent', '0', '--json'),
    );
    assert.deepEqual(country, { ...set, country_conversion_sends: 500, country_conversion_percent: 0 });
    settings('--country-conversion-sends', '200', '--country-conversion-percent', '5');
  });

  test('settings: bad types, out of range and huge values are usage errors (exit 2) and change nothing', () => {
    const before = jsonOf(settings('--json'));
    for (const [option, value] of [
      ['--range-limit', 'ten'],
      ['--range-limit', '0'],
      ['--range-limit', '1001'],
      ['--range-limit', '-5'],
      ['--range-limit', '1e3'],
      ['--range-limit', '99999999999999999999999999'],
      ['--range-window-seconds', '59'],
      ['--range-window-seconds', '86401'],
      ['--range-window-seconds', '٦٠٠'],
      ['--block-seconds', '604801'],
      ['--block-seconds', ''],
      ['--block-seconds', '12.5'],
      ['--conversion-sends', 'fifty'],
      ['--conversion-sends', '9'],
      ['--conversion-sends', '1001'],
      ['--conversion-sends', '-50'],
      ['--conversion-percent', '101'],
      ['--conversion-percent', '-1'],
      ['--conversion-percent', '10%'],
      ['--conversion-percent', '99999999999999999999999999'],
      ['--country-conversion-sends', '9'],
      ['--country-conversion-sends', '10001'],
      ['--country-conversion-sends', 'many'],
      ['--country-conversion-sends', '２００'],
      ['--country-conversion-percent', '101'],
      ['--country-conversion-percent', '-1'],
      ['--country-conversion-percent', '5.5'],
    ] as const) {
      const result = settings(`${option}=${value}`, '--json');
      assertCleanFailure(result, new RegExp(option));
      assert.equal(result.status, 2, `${option}=${value}`);
    }
    assert.deepEqual(jsonOf(settings('--json')), before);
  });

  test('allow and disallow: prefixes listed in order; bad prefixes are usage errors', () => {
    cliJson(['fraud', 'allow', '--workspace', ws, '--prefix', '+61412345'], env);
    const shown = jsonOf<{ allow: string[] }>(
      fraud('allow', '--workspace', ws, '--prefix', '+614 9999', '--json'),
    );
    assert.deepEqual(shown.allow, ['+61412345', '+6149999']);
    // Adding again changes nothing.
    assert.deepEqual(
      jsonOf<{ allow: string[] }>(fraud('allow', '--workspace', ws, '--prefix', '+61412345', '--json')).allow,
      shown.allow,
    );
    for (const bad of [
      '61412345',
      '+',
      '+0612',
      '+6141234567890123',
      '+61-412',
      '+６１４',
      '+61\u200b4',
      'x'.repeat(10_000),
      '%',
    ]) {
      const result = fraud('allow', '--workspace', ws, '--prefix', bad, '--json');
      assertCleanFailure(result, /--prefix/);
      assert.equal(result.status, 2, JSON.stringify(bad));
    }
    const removed = jsonOf<{ allow: string[] }>(
      fraud('disallow', '--workspace', ws, '--prefix', '+6149999', '--json'),
    );
    assert.deepEqual(removed.allow, ['+61412345']);
    const again = fraud('disallow', '--workspace', ws, '--prefix', '+6149999', '--json');
    assertCleanFailure(again, /not on the allow list/);
    assert.equal(again.status, 1);
  });

  test('blocks lists none; lift of a range without a block fails (exit 1); an unknown workspace fails', () => {
    assert.deepEqual(jsonOf(fraud('blocks', '--workspace', ws, '--json')), []);
    const human = fraud('blocks', '--workspace', ws);
    assert.equal(human.stdout, '(none)\n');
    const lift = fraud('lift', '--workspace', ws, '--range', '+61412345', '--json');
    assertCleanFailure(lift, /No active block/);
    assert.equal(lift.status, 1);
    const badRange = fraud('lift', '--workspace', ws, '--range', '+61 4123 45x', '--json');
    assertCleanFailure(badRange, /--range/);
    assert.equal(badRange.status, 2);
    const unknown = fraud('blocks', '--workspace', 'ws_nope', '--json');
    assertCleanFailure(unknown, /No workspace/);
    assert.equal(unknown.status, 1);
    const missing = fraud('lift', '--workspace', ws, '--json');
    assertCleanFailure(missing, /--range is required/);
    assert.equal(missing.status, 2);
    const noCountryBlock = fraud('lift', '--workspace', ws, '--country', 'AU', '--json');
    assertCleanFailure(noCountryBlock, /No active block of AU/);
    assert.equal(noCountryBlock.status, 1);
    for (const bad of ['au', 'AUS', '', 'XX', '６１', 'A'.repeat(10_000)]) {
      const result = fraud('lift', '--workspace', ws, '--country', bad, '--json');
      assertCleanFailure(result, /--country/);
      assert.equal(result.status, 2, JSON.stringify(bad.slice(0, 10)));
    }
    const both = fraud('lift', '--workspace', ws, '--range', '+61412345', '--country', 'AU', '--json');
    assertCleanFailure(both, /not both/);
    assert.equal(both.status, 2);
  });

  test('NUL bytes are refused before any query sees them', async () => {
    const services = new Proxy({}, { get: () => assert.fail('no service may run') }) as unknown as Services;
    const run = (name: string, values: Record<string, string>) => {
      const command = FRAUD_COMMANDS[name];
      assert.ok(command);
      return command.run(services, values, []);
    };
    await assert.rejects(run('fraud settings', { workspace: `${ws}\u0000` }), /control characters/);
    await assert.rejects(
      run('fraud settings', { workspace: ws, 'range-limit': '10\u0000' }),
      /--range-limit/,
    );
    await assert.rejects(
      run('fraud settings', { workspace: ws, 'conversion-percent': '1\u0000' }),
      /--conversion-percent/,
    );
    await assert.rejects(run('fraud allow', { workspace: ws, prefix: '+614\u0000' }), /--prefix/);
    await assert.rejects(run('fraud lift', { workspace: ws, range: '+614\u0000' }), /--range/);
    await assert.rejects(run('fraud lift', { workspace: ws, country: 'AU\u0000' }), /--country/);
    await assert.rejects(
      run('fraud settings', { workspace: ws, 'country-conversion-sends': '200\u0000' }),
      /--country-conversion-sends/,
    );
    assert.throws(() => runCli(['fraud', 'blocks', '--workspace', `${ws}\u0000`], env), /null bytes/);
  });
});
