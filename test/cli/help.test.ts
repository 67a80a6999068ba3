// The CLI an operator enjoys (issue 16, item 4): help per command and per group, --version, unknown commands and
// options answered with the nearest valid name, and every mistake Node's argument parser would describe in its own
// words (a missing value, an unknown option, an option given twice, an argument where none is taken) said in one
// plain line instead, exit 2; under --json, the error is the one JSON value on stdout. Through the real built CLI.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { COMMANDS } from '../../src/cli/commands.js';
import { commandHelp, groupHelp, overview } from '../../src/cli/help.js';
import { type Command, str } from '../../src/cli/options.js';
import { assertCleanFailure, cliSuiteEnv } from '../helpers/cli-setup.js';
import { type CliResult, runCliAsync } from '../helpers/process.js';

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** The commands written with a summary, an example and option descriptions (others may add commands without). */
const DESCRIBED = [
  'workspace create',
  'workspace list',
  'workspace limits',
  'workspace delete',
  'number add',
  'number list',
  'number remove',
  'number set-carrier',
  'key create',
  'key revoke',
  'key list',
  'account create',
  'account add',
  'account list',
  'account remove',
  'account reset-password',
  'carrier add',
  'carrier list',
  'carrier rotate',
  'carrier remove',
  'carrier test',
  'fraud settings',
  'fraud allow',
  'fraud disallow',
  'fraud blocks',
  'fraud lift',
  'audit list',
  'secret reseal',
  'outbox',
  'test-number add',
  'test-number list',
  'test-number remove',
];

/** Node's own parser texts, none of which may reach an operator. */
const RAW_PARSER_TEXT =
  /argument missing|argument is ambiguous|Unknown option '|Unexpected argument '|ERR_PARSE_ARGS|does not take an argument/;

describe('CLI: help, version and suggestions', () => {
  const { env } = cliSuiteEnv();
  const run = (...args: string[]) => runCliAsync(args, env);

  test('--help, -h and help list every command with a one-line summary, exit 0, nothing on stderr', async () => {
    const results = await Promise.all([run('--help'), run('-h'), run('help')]);
    for (const result of results) {
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr, '');
      assert.equal(result.stdout, results[0]?.stdout);
    }
    const text = results[0]?.stdout ?? '';
    assert.match(text, new RegExp(`^phone-verify ${VERSION.replaceAll('.', '\\.')}:`));
    for (const [name, command] of Object.entries(COMMANDS)) {
      const line = new RegExp(`^  ${name}\\s+(.+)$`, 'm').exec(text)?.[1];
      assert.ok(line, `help lacks ${name}`);
      if (command.summary) assert.equal(line, command.summary);
    }
    assert.match(text, /^ {2}serve\s+run the HTTP service/m);
  });

  test('a group alone, `group --help` and `help group` list its commands and no others, exit 0', async () => {
    for (const group of ['key', 'workspace', 'fraud', 'account', 'number', 'carrier']) {
      const results = await Promise.all([run(group), run(group, '--help'), run('help', group)]);
      const names = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `));
      assert.ok(names.length > 0);
      for (const result of results) {
        assert.equal(result.status, 0, `${group}: ${result.stderr}`);
        assert.equal(result.stderr, '');
        for (const name of names)
          assert.match(result.stdout, new RegExp(`^  ${name}\\s`, 'm'), `${group}: ${name}`);
        assert.doesNotMatch(result.stdout, /^ {2}(outbox|audit list)\s/m, group);
      }
    }
  });

  test('`key create --help` shows the usage, each option with its description, and an example; so do -h and `help key create`', async () => {
    const results = await Promise.all([
      run('key', 'create', '--help'),
      run('key', 'create', '-h'),
      run('help', 'key', 'create'),
      // --help wins over whatever else is wrong on the line.
      run('key', 'create', '--workspace', '--bogus', '--help'),
    ]);
    for (const result of results) {
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr, '');
      assert.equal(result.stdout, results[0]?.stdout);
    }
    const text = results[0]?.stdout ?? '';
    assert.match(
      text,
      /^Usage: phone-verify key create --workspace WS_ID --name NAME \[--scopes otp,…\] \[--expires-in SECONDS\] \[--mode live\|test\]$/m,
    );
    assert.match(text, /^ {2}--workspace WS_ID\s+the workspace's id/m);
    assert.match(text, /^ {2}--name NAME\s+\S/m);
    assert.match(text, /^ {2}--scopes otp,…\s+what the key may do/m);
    assert.match(text, /^ {2}--expires-in SECONDS\s+seconds until/m);
    assert.match(text, /^ {2}--mode live\|test\s+live \(default\), or test/m);
    assert.match(text, /^ {2}--json\s+print exactly one JSON value/m);
    assert.match(text, /^Example:\n {2}phone-verify key create --workspace ws_… --name backend/m);
  });

  test('every command has help: its usage and each of its options; the operator commands also a summary, an example and what each option means', async () => {
    const names = Object.keys(COMMANDS);
    const results = await Promise.all(names.map((name) => run(...name.split(' '), '--help')));
    results.forEach((result, i) => {
      const name = names[i] as string;
      assert.equal(result.status, 0, `${name}: ${result.stderr}`);
      assert.match(result.stdout, new RegExp(`^Usage: phone-verify ${name}`), name);
      const described = DESCRIBED.includes(name);
      if (described) assert.match(result.stdout, /^Example:\n {2}(\S.*)?phone-verify /m, name);
      for (const option of Object.keys(COMMANDS[name]?.options ?? {})) {
        const line = described ? `^  --${option}( \\S+)? {2,}\\S` : `^  --${option}\\b`;
        assert.match(result.stdout, new RegExp(line, 'm'), `${name} --${option}`);
      }
    });
  });

  test('a command without the optional fields (summary, example, descriptions) is listed and helped by its usage', () => {
    const bare: Command = {
      usage: 'thing frob --workspace WS_ID --size N',
      options: { workspace: str, size: str },
      run: async () => undefined,
      print: () => undefined,
    };
    const table = { ...COMMANDS, 'thing frob': bare };
    assert.match(overview(table).text, /^ {2}thing frob\s+--workspace WS_ID --size N$/m);
    assert.match(groupHelp(table, 'thing').text, /^ {2}thing frob {2}--workspace WS_ID --size N$/m);
    const help = commandHelp('thing frob', bare).text;
    assert.match(help, /^Usage: phone-verify thing frob --workspace WS_ID --size N$/m);
    assert.match(help, /^ {2}--workspace WS_ID\s+the workspace's id/m);
    assert.match(help, /^ {2}--size N$/m);
    assert.doesNotMatch(help, /Example:/);
  });

  test('serve --help explains serve and starts nothing', async () => {
    const result = await run('serve', '--help');
    assert.equal(result.status, 0);
    assert.match(result.stdout, /^Usage: phone-verify serve/);
    assert.match(result.stdout, /PORT, HOST, DATABASE_URL/);
  });

  test('--version and -v print the package version, exit 0; with --json, { "version" }', async () => {
    const [long, short, json] = await Promise.all([run('--version'), run('-v'), run('--version', '--json')]);
    assert.equal(long.stdout, `${VERSION}\n`);
    assert.equal(short.stdout, `${VERSION}\n`);
    assert.deepEqual(JSON.parse(json.stdout), { version: VERSION });
    for (const r of [long, short, json]) assert.equal(r.status, 0);
  });

  test('help under --json is one JSON value: the command list, a group, a command with its options', async () => {
    const [all, group, one] = await Promise.all([
      run('--help', '--json'),
      run('key', '--json'),
      run('key', 'create', '--help', '--json'),
    ]);
    const listed = JSON.parse(all.stdout) as { version: string; commands: { command: string }[] };
    assert.equal(listed.version, VERSION);
    assert.deepEqual(
      listed.commands.map((c) => c.command),
      ['serve', ...Object.keys(COMMANDS)],
    );
    assert.deepEqual(
      (JSON.parse(group.stdout) as { commands: { command: string }[] }).commands.map((c) => c.command),
      ['key create', 'key revoke', 'key list'],
    );
    const command = JSON.parse(one.stdout) as {
      command: string;
      options: { option: string; value: string }[];
    };
    assert.equal(command.command, 'key create');
    assert.deepEqual(command.options[0], {
      option: '--workspace',
      value: 'WS_ID',
      description: "the workspace's id (ws_…, from workspace list)",
    });
  });

  const expectUsageError = async (args: string[], reason: RegExp): Promise<void> => {
    const [plain, json] = await Promise.all([runCliAsync(args, env), runCliAsync([...args, '--json'], env)]);
    for (const result of [plain, json]) {
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assertCleanFailure(result, reason);
      assert.doesNotMatch(result.stderr, RAW_PARSER_TEXT);
    }
    assert.equal(plain.stdout, '');
    const problem = assertCleanFailure(json, reason);
    assert.equal(problem?.code, 'invalid_usage');
    assert.equal(problem?.title, 'Invalid usage');
  };

  test('a mistyped option is answered with the nearest one', async () => {
    await Promise.all([
      expectUsageError(
        ['key', 'list', '--worksapce', 'ws_x'],
        /^error: unknown option --worksapce; did you mean --workspace\?\n$/,
      ),
      expectUsageError(['workspace', 'create', '--nmae', 'Acme'], /did you mean --name\?/),
      expectUsageError(
        ['workspace', 'limits', '--workspace', 'ws_x', '--send-limt', '3'],
        /did you mean --send-limit\?/,
      ),
      // Nothing close: where to look instead.
      expectUsageError(
        ['outbox', '--frobnicate'],
        /^error: unknown option --frobnicate; phone-verify outbox --help lists its options\n$/,
      ),
      // A short option nobody defined.
      expectUsageError(['key', 'list', '-w', 'ws_x'], /unknown option -w\b/),
    ]);
  });

  test('a mistyped command is answered with the nearest one', async () => {
    await Promise.all([
      expectUsageError(
        ['worksapce', 'list'],
        /^error: unknown command "worksapce"; did you mean "workspace"\?\n$/,
      ),
      expectUsageError(
        ['workspace', 'lst'],
        /^error: unknown command "workspace lst"; did you mean "workspace list"\?\n$/,
      ),
      expectUsageError(['key', 'craete'], /did you mean "key create"\?/),
      expectUsageError(['outbx'], /did you mean "outbox"\?/),
      // A group with an option where its command should be.
      expectUsageError(
        ['key', '--workspace', 'ws_x'],
        /^error: "key" needs a command first: key create, key revoke, key list\n$/,
      ),
      expectUsageError(
        ['frobnicate'],
        /^error: unknown command "frobnicate"; phone-verify --help lists the commands\n$/,
      ),
    ]);
  });

  test("Node's parser texts are replaced: a missing value, a value that is the next option, an option given twice, a value given to a flag, an argument where none is taken", async () => {
    await Promise.all([
      expectUsageError(['workspace', 'create', '--name'], /^error: --name needs a value\n$/),
      expectUsageError(['number', 'list', '--workspace'], /^error: --workspace needs a value\n$/),
      expectUsageError(
        ['key', 'create', '--name', '--workspace', 'ws_x'],
        /^error: --name needs a value \(for one that starts with "-", write --name=VALUE\)\n$/,
      ),
      expectUsageError(
        ['workspace', 'create', '--name', 'A', '--name', 'B'],
        /^error: --name given twice; give it once\n$/,
      ),
      expectUsageError(['workspace', 'create', '--name=A', '--name=A'], /--name given twice/),
      expectUsageError(
        ['account', 'create', '--email', 'a@example.com', '--password-stdin=yes'],
        /^error: --password-stdin takes no value\n$/,
      ),
      expectUsageError(
        ['workspace', 'list', 'extra'],
        /^error: unexpected argument \(workspace list takes none\); usage: phone-verify workspace list\n$/,
      ),
      expectUsageError(['key', 'revoke', 'key_a', 'key_b'], /unexpected argument \(key revoke takes one\)/),
      expectUsageError(['key', 'revoke'], /^error: usage: phone-verify key revoke KEY_ID\n$/),
    ]);
  });

  test('a refused value or argument is never echoed (it may be a secret typed in the wrong place)', async () => {
    const secret = 's3cr3t-token-value';
    const results = await Promise.all([
      run('key', 'create', '--workspace', 'ws_x', '--name', `-${secret}`),
      run('secret', 'reseal', secret),
      run('key', 'list', `--bogus=${secret}`),
      run('account', 'remove', 'usr_x', secret),
    ]);
    for (const result of results) {
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stderr.includes(secret), false, result.stderr);
      assert.equal(result.stdout.includes(secret), false);
    }
  });

  test('odd input: odd Unicode, a huge option name or value, are refused in one line without echoing a flood', async () => {
    const huge = `--${'w'.repeat(100_000)}`;
    const results = await Promise.all([
      run('key', 'list', '--wörkspace', 'x'),
      run('key', 'list', '--work\u200bspace', 'x'),
      run('key', 'list', huge),
      run('key', 'list', '--workspace', 'x'.repeat(100_000), '--bogus'),
      run('\u202ekey', 'list'),
    ]);
    for (const result of results) {
      assert.equal(result.status, 2, result.stderr.slice(0, 200));
      assertCleanFailure(result as CliResult, /unknown (option|command)/);
    }
    // The huge name is shown (it is what was typed) but never compared letter by letter with every option.
    assert.doesNotMatch(results[2]?.stderr ?? '', /did you mean/);
  });
});
