// Operator interface, CLI failures and help: a failed command exits non-zero with exactly one line on stderr
// (never a stack trace) and, with --json, prints exactly one JSON value on stdout, the error ({ code, title,
// detail, exit_code }); `--help` works. (Help, --version and suggestions in detail: help.test.ts.)
// The failing commands are independent, so each group runs its processes side by side.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { COMMANDS } from '../../src/cli/commands.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace } from '../helpers/cli-setup.js';
import { type CliResult, cliJson, runCliAsync } from '../helpers/process.js';

/** Runs every case (at most 6 processes at once) and checks each one failed cleanly with its reason. */
async function expectCleanFailures(cases: [string[], RegExp][], env: Record<string, string>): Promise<void> {
  const results: CliResult[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runCliAsync([...(cases[i]?.[0] ?? []), '--json'], env);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  cases.forEach(([args, reason], i) => {
    const result = results[i] as CliResult;
    const label = `phone-verify ${args.join(' ')} --json`;
    assert.notEqual(result.status, 0, `${label}: expected a failure, got exit 0: ${result.stdout}`);
    assert.notEqual(result.status, null, `${label}: killed by a signal`);
    assert.match(
      result.stderr,
      /^[^\n]+\n$/,
      `${label}: stderr is not one line: ${JSON.stringify(result.stderr)}`,
    );
    assert.doesNotMatch(result.stderr, /\bat .+:\d+:\d+/, `${label}: stack trace`);
    assert.match(result.stderr, reason, `${label}: ${result.stderr}`);
    // stdout: exactly one JSON value, the error, saying what stderr says.
    const problem = assertCleanFailure(result, reason);
    assert.ok(problem, `${label}: nothing on stdout`);
    assert.equal(
      problem.exit_code === 2,
      problem.code === 'invalid_usage' || problem.code === 'invalid_configuration',
      label,
    );
  });
}

describe('CLI: help and failures', () => {
  const { env } = cliSuiteEnv();
  let ws = '';

  before(() => {
    ws = createWorkspace(env);
  });

  test('--help lists every command; --help after a command shows its usage', async () => {
    const [help, onCommand] = await Promise.all([
      runCliAsync(['--help'], env),
      runCliAsync(['key', 'create', '--help'], env),
    ]);
    for (const result of [help, onCommand]) {
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr, '');
    }
    for (const name of ['serve', ...Object.keys(COMMANDS)]) {
      assert.match(help.stdout, new RegExp(`^  ${name}\\s`, 'm'), `help lacks ${name}`);
    }
    assert.ok(help.stdout.includes('--json'));
    assert.ok(
      onCommand.stdout.includes(
        'Usage: phone-verify key create --workspace WS_ID --name NAME [--scopes otp,…] [--expires-in SECONDS]',
      ),
    );
  });

  test('no command at all fails cleanly: exit 2, one line on stderr, the commands listed (the error as JSON with --json)', async () => {
    const [plain] = await Promise.all([
      runCliAsync([], env),
      expectCleanFailures([[[], /no command/]], env), // with --json
    ]);
    assert.equal(plain.status, 2);
    assert.match(plain.stdout, /Usage: phone-verify <command>/);
    assert.match(plain.stderr, /^[^\n]*no command[^\n]*\n$/);
  });

  test('unknown commands fail cleanly', async () => {
    await expectCleanFailures(
      [
        [['frobnicate'], /unknown command "frobnicate"/],
        [['workspace', 'frobnicate'], /unknown command "workspace frobnicate"/],
        [['key', 'mint'], /unknown command "key mint"/],
      ],
      env,
    );
  });

  test('unknown options and stray arguments fail cleanly', async () => {
    await expectCleanFailures(
      [
        [['workspace', 'create', '--name', 'Acme', '--colour', 'red'], /--colour/],
        [['outbox', '--bogus'], /--bogus/],
        [['workspace', 'list', 'extra'], /usage: phone-verify workspace list/],
        [['serve', 'now'], /serve takes no arguments/],
      ],
      env,
    );
  });

  test('missing required options (or their values) fail cleanly and name what is missing', async () => {
    await expectCleanFailures(
      [
        [['workspace', 'create'], /--name/],
        [['workspace', 'create', '--name'], /--name/],
        [['number', 'add', '--workspace', ws], /--number/],
        [['number', 'list'], /--workspace/],
        [['key', 'create', '--workspace', ws], /--name/],
        [['key', 'revoke'], /KEY_ID/],
        [['key', 'list'], /--workspace/],
      ],
      env,
    );
  });

  test('bad values fail cleanly with the reason', async () => {
    await expectCleanFailures(
      [
        [['number', 'add', '--workspace', ws, '--number', '+61491570156', '--type', 'fax'], /type.*mobile/],
        [['number', 'add', '--workspace', ws, '--number', 'not a phone'], /phone|number/i],
        [['number', 'add', '--workspace', ws, '--number', '0491570156'], /E\.164/],
        [['number', 'add', '--workspace', 'ws_nope', '--number', '+61491570156'], /ws_nope/],
        [['key', 'create', '--workspace', ws, '--name', 'k', '--scopes', 'admin'], /scope.*admin/],
        [['key', 'create', '--workspace', ws, '--name', 'k', '--expires-in', 'soon'], /--expires-in/],
        [['key', 'create', '--workspace', ws, '--name', 'k', '--expires-in', '0'], /expires/],
        [['key', 'revoke', 'key_nope'], /key_nope/],
        [['workspace', 'create', '--name', 'Visit http://evil.example'], /URL/],
      ],
      env,
    );
    // None of the refused commands left anything behind.
    assert.deepEqual(cliJson(['number', 'list', '--workspace', ws], env), []);
    assert.deepEqual(cliJson(['key', 'list', '--workspace', ws], env), []);
  });

  test('an invalid environment makes every command fail cleanly, naming the variable', async () => {
    await expectCleanFailures([[['workspace', 'list'], /DATABASE_URL/]], {
      ...env,
      DATABASE_URL: 'mysql://x',
    });
    await expectCleanFailures([[['workspace', 'list'], /PHONE_VERIFY_SECRET/]], {
      ...env,
      PHONE_VERIFY_SECRET: 'short',
    });
  });
});
