// Operator interface, CLI command `workspace limits`: shows a workspace's limits and sets the ones given, through
// the real built CLI on a fresh database (SQLite or PostgreSQL, per TEST_STORE). Bad input is a usage error (2).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { WORKSPACE_COMMANDS } from '../../src/cli/workspace-commands.js';
import type { Services } from '../../src/services.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf } from '../helpers/cli-setup.js';
import { runCli } from '../helpers/process.js';

const DEFAULTS = {
  send_limit: 5,
  send_window_seconds: 600,
  request_limit_per_minute: 6000,
  guess_limit: 20,
  guess_window_seconds: 3600,
};

describe('CLI: workspace limits', () => {
  const { env } = cliSuiteEnv();
  let ws = '';

  before(() => {
    ws = createWorkspace(env);
  });

  const limits = (...args: string[]) => runCli(['workspace', 'limits', '--workspace', ws, ...args], env);

  test('--json without a limit shows the defaults as exactly one JSON value', () => {
    const shown = jsonOf<Record<string, unknown>>(limits('--json'));
    assert.deepEqual(shown, { workspace_id: ws, ...DEFAULTS });
  });

  test('sets the limits given, keeps the others, and the change is stored', () => {
    const set = jsonOf<Record<string, unknown>>(limits('--requests-per-minute', '1000000', '--json'));
    assert.deepEqual(set, { workspace_id: ws, ...DEFAULTS, request_limit_per_minute: 1_000_000 });
    const both = jsonOf<Record<string, unknown>>(
      limits('--sends-per-number', '20', '--send-window-seconds', '60', '--json'),
    );
    assert.deepEqual(both, {
      ...DEFAULTS,
      workspace_id: ws,
      send_limit: 20,
      send_window_seconds: 60,
      request_limit_per_minute: 1_000_000,
    });
    assert.deepEqual(jsonOf(limits('--json')), both);
  });

  test('--guess-limit and --guess-window-seconds set the failed-guess ceiling and keep the other limits', () => {
    const before = jsonOf<Record<string, unknown>>(limits('--json'));
    const set = jsonOf<Record<string, unknown>>(
      limits('--guess-limit', '1000', '--guess-window-seconds', '60', '--json'),
    );
    assert.deepEqual(set, { ...before, guess_limit: 1000, guess_window_seconds: 60 });
    const one = jsonOf<Record<string, unknown>>(limits('--guess-limit=1', '--json'));
    assert.deepEqual(one, { ...before, guess_limit: 1, guess_window_seconds: 60 });
    const day = jsonOf<Record<string, unknown>>(limits('--guess-window-seconds', '86400', '--json'));
    assert.deepEqual(day, { ...before, guess_limit: 1, guess_window_seconds: 86_400 });
    assert.deepEqual(jsonOf(limits('--json')), day);
    const reset = limits('--guess-limit', '20', '--guess-window-seconds', '3600', '--json');
    assert.deepEqual(jsonOf(reset), before);
  });

  test('bad --guess-limit and --guess-window-seconds are usage errors (exit 2) naming the option, and change nothing', () => {
    const before = jsonOf(limits('--json'));
    for (const [option, value, reason] of [
      ['--guess-limit', 'twenty', /whole number/],
      ['--guess-limit', '-1', /whole number/],
      ['--guess-limit', '2.5', /whole number/],
      ['--guess-limit', '1e3', /whole number/],
      ['--guess-limit', '', /whole number/],
      ['--guess-limit', '٢٠', /whole number/],
      ['--guess-limit', '２０', /whole number/],
      ['--guess-limit', '20\u200b', /whole number/],
      ['--guess-limit', '0', /from 1 to 1000/],
      ['--guess-limit', '1001', /from 1 to 1000/],
      ['--guess-limit', '99999999999999999999999999999', /from 1 to 1000/],
      ['--guess-window-seconds', 'hour', /whole number/],
      ['--guess-window-seconds', '-3600', /whole number/],
      ['--guess-window-seconds', ' 3600', /whole number/],
      ['--guess-window-seconds', '0x3c', /whole number/],
      ['--guess-window-seconds', '59', /from 60 to 86400/],
      ['--guess-window-seconds', '86401', /from 60 to 86400/],
      ['--guess-window-seconds', '1'.padEnd(400, '0'), /from 60 to 86400/],
    ] as const) {
      const result = limits(`${option}=${value}`, '--json');
      assertCleanFailure(result, new RegExp(`${option}.*${reason.source}`));
      assert.equal(result.status, 2, `${option}=${value}`);
    }
    assert.deepEqual(jsonOf(limits('--json')), before);
  });

  test('without --json prints human-readable lines, not JSON', () => {
    const result = limits();
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^request_limit_per_minute\s+\d+$/m);
    assert.match(result.stdout, new RegExp(`^workspace_id\\s+${ws}$`, 'm'));
    assert.throws(() => JSON.parse(result.stdout));
  });

  test('bad types are usage errors (exit 2) naming the option, and change nothing', () => {
    const before = jsonOf(limits('--json'));
    for (const [option, value] of [
      ['--requests-per-minute', 'lots'],
      ['--requests-per-minute', '12.5'],
      ['--requests-per-minute', '-100'],
      ['--sends-per-number', '1e3'],
      ['--sends-per-number', ''],
      ['--send-window-seconds', ' 60'],
      ['--send-window-seconds', '0x40'],
    ] as const) {
      const result = limits(`${option}=${value}`, '--json');
      assertCleanFailure(result, new RegExp(`${option}`));
      assert.equal(result.status, 2, `${option}=${value}`);
    }
    assert.deepEqual(jsonOf(limits('--json')), before);
  });

  test('values outside the range, huge ones included, are usage errors (exit 2)', () => {
    for (const [option, value] of [
      ['--requests-per-minute', '9'],
      ['--requests-per-minute', '1000001'],
      ['--requests-per-minute', '99999999999999999999999999999'],
      ['--sends-per-number', '0'],
      ['--sends-per-number', '101'],
      ['--send-window-seconds', '59'],
      ['--send-window-seconds', '86401'],
    ] as const) {
      const result = limits(option, value, '--json');
      assertCleanFailure(result, /from \d+ to \d+/);
      assert.equal(result.status, 2, `${option} ${value}`);
    }
  });

  test('an unknown workspace fails (exit 1) with one line; an unknown or missing option is a usage error', () => {
    const unknown = runCli(['workspace', 'limits', '--workspace', 'ws_nope', '--json'], env);
    assertCleanFailure(unknown, /No workspace ws_nope/);
    assert.equal(unknown.status, 1);
    const setUnknown = runCli(
      ['workspace', 'limits', '--workspace', 'ws_nope', '--requests-per-minute', '100', '--json'],
      env,
    );
    assertCleanFailure(setUnknown, /No workspace ws_nope/);
    const missing = runCli(['workspace', 'limits', '--json'], env);
    assertCleanFailure(missing, /--workspace is required/);
    assert.equal(missing.status, 2);
    const bogus = limits('--burst', '5', '--json');
    assertCleanFailure(bogus, /burst/);
    assert.equal(bogus.status, 2);
  });

  test('NUL bytes (which no process argument can carry) are refused before any query sees them', async () => {
    // The command's own checks, called in-process: argv cannot hold a NUL, but nothing else stops one.
    const command = WORKSPACE_COMMANDS['workspace limits'];
    assert.ok(command);
    const services = {
      workspaces: {
        getSettings: () => assert.fail('no query may run'),
        setLimits: () => assert.fail('no query may run'),
      },
    } as unknown as Services;
    await assert.rejects(command.run(services, { workspace: `${ws}\u0000` }, []), /control characters/);
    await assert.rejects(
      command.run(services, { workspace: ws, 'requests-per-minute': '100\u0000' }, []),
      /--requests-per-minute must be a whole number/,
    );
    for (const option of ['guess-limit', 'guess-window-seconds']) {
      await assert.rejects(
        command.run(services, { workspace: ws, [option]: '3600\u0000' }, []),
        new RegExp(`--${option} must be a whole number`),
      );
    }
    // Through the real CLI, a NUL cannot even reach the process.
    assert.throws(() => runCli(['workspace', 'limits', '--workspace', `${ws}\u0000`], env), /null bytes/);
  });

  describe("the issue's names: --send-limit, --send-window (with a unit), --request-limit", () => {
    test('set the same limits as --sends-per-number, --send-window-seconds and --requests-per-minute', () => {
      const before = jsonOf<Record<string, unknown>>(limits('--json'));
      const set = jsonOf<Record<string, unknown>>(
        limits('--send-limit', '3', '--send-window', '900', '--request-limit', '1200', '--json'),
      );
      assert.deepEqual(set, {
        ...before,
        send_limit: 3,
        send_window_seconds: 900,
        request_limit_per_minute: 1200,
      });
      assert.deepEqual(jsonOf(limits('--json')), set);
      // The operator interface's names still work, and read back the same.
      const old = jsonOf<Record<string, unknown>>(
        limits(
          '--sends-per-number',
          '4',
          '--send-window-seconds',
          '600',
          '--requests-per-minute',
          '6000',
          '--json',
        ),
      );
      assert.deepEqual(old, {
        ...before,
        send_limit: 4,
        send_window_seconds: 600,
        request_limit_per_minute: 6000,
      });
    });

    test('--send-window takes seconds, or a whole number of s, m, h or d', () => {
      for (const [value, seconds] of [
        ['60', 60],
        ['90s', 90],
        ['10m', 600],
        ['2h', 7200],
        ['1d', 86_400],
        ['1440m', 86_400],
      ] as const) {
        const set = jsonOf<Record<string, unknown>>(limits(`--send-window=${value}`, '--json'));
        assert.equal(set.send_window_seconds, seconds, value);
      }
    });

    test('both spellings of one limit at once are a usage error (exit 2), even when they agree; nothing changes', () => {
      const before = jsonOf(limits('--json'));
      for (const [a, b] of [
        ['--send-limit=3', '--sends-per-number=3'],
        ['--send-window=10m', '--send-window-seconds=600'],
        ['--request-limit=100', '--requests-per-minute=200'],
      ] as const) {
        const result = limits(a, b, '--json');
        assertCleanFailure(result, /set the same limit: give one of them/);
        assert.equal(result.status, 2, `${a} ${b}`);
      }
      assert.deepEqual(jsonOf(limits('--json')), before);
    });

    test('bad values are usage errors naming the option given, and change nothing', () => {
      const before = jsonOf(limits('--json'));
      for (const [option, value, reason] of [
        ['--send-limit', '0', /--send-limit must be a whole number from 1 to 100/],
        ['--send-limit', 'three', /--send-limit must be a whole number/],
        ['--request-limit', '9', /--request-limit must be a whole number from 10 to 1000000/],
        ['--request-limit', '99999999999999999999999999', /--request-limit must be a whole number from 10/],
        ['--send-window', '59s', /--send-window must be a whole number from 60 to 86400 seconds/],
        ['--send-window', '2d', /--send-window must be a whole number from 60 to 86400 seconds/],
        ['--send-window', '999999999999999d', /--send-window must be a whole number from 60/],
        ['--send-window', '9'.repeat(400), /--send-window must be whole seconds or a duration/],
        ['--send-window', '10 m', /--send-window must be whole seconds or a duration/],
        ['--send-window', '10M', /--send-window must be whole seconds or a duration/],
        ['--send-window', '1h30m', /--send-window must be whole seconds or a duration/],
        ['--send-window', '-10m', /--send-window must be whole seconds or a duration/],
        ['--send-window', '１０m', /--send-window must be whole seconds or a duration/],
        ['--send-window', '10m\u200b', /--send-window must be whole seconds or a duration/],
        ['--send-window', '', /--send-window must be whole seconds or a duration/],
      ] as const) {
        const result = limits(`${option}=${value}`, '--json');
        assertCleanFailure(result, reason);
        assert.equal(result.status, 2, `${option}=${value}`);
      }
      assert.deepEqual(jsonOf(limits('--json')), before);
    });
  });
});
