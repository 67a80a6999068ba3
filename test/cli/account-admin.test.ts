// Operator interface, CLI commands `account list`, `account remove` and `account reset-password` (issue 16, item
// 4): through the real built CLI, against a running server's dashboard over real HTTP where sessions and the
// sign-in lock are concerned. Every change is in the audit trail of the account's workspaces.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCli, runCliAsync, type ServerProcess, startServer } from '../helpers/process.js';
import {
  awayFromSigninWindowEnd,
  sessionCookieOf,
  sessionOpensDashboard,
  signInOverHttp,
} from '../helpers/signin.js';

const PASSWORD = 'a long enough password';

interface Account {
  id: string;
  email: string;
  created_at: string;
  workspaces: { id: string; name: string }[];
}

describe('CLI: account list, remove, reset-password', () => {
  const { env } = cliSuiteEnv();
  let server: ServerProcess;
  let ws = '';

  const create = (email: string, workspace?: string): Account =>
    jsonOf<Account>(
      runCli(
        [
          'account',
          'create',
          '--email',
          email,
          '--password-stdin',
          ...(workspace ? ['--workspace', workspace] : []),
          '--json',
        ],
        env,
        PASSWORD,
      ),
    );
  const auditOf = (workspace: string, action: string) =>
    cliJson<{ action: string; target: string; details: Record<string, unknown> }[]>(
      ['audit', 'list', '--workspace', workspace, '--action', action],
      env,
    );
  const signIn = async (email: string, password: string): Promise<string | undefined> =>
    sessionCookieOf(await signInOverHttp(server.url, email, password));

  before(async () => {
    ws = createWorkspace(env, 'Acme');
    server = await startServer(env);
  });
  after(async () => {
    await server.stop();
  });

  test('account list --json: every account with its workspaces, oldest first, never a password or its hash', () => {
    const first = create('list-a@example.com', ws);
    const second = create('list-b@example.com');
    const result = runCli(['account', 'list', '--json'], env);
    const accounts = jsonOf<Account[]>(result);
    const mine = accounts.filter((a) => a.email.startsWith('list-'));
    assert.deepEqual(mine, [first, second]);
    for (const a of accounts) {
      assert.deepEqual(Object.keys(a).sort(), ['created_at', 'email', 'id', 'workspaces']);
      assert.match(a.created_at, TIMESTAMP);
    }
    assert.doesNotMatch(result.stdout, /scrypt|password|hash|\$/i);
    const human = runCli(['account', 'list'], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(
      human.stdout,
      new RegExp(`^${first.id}\\s+list-a@example\\.com\\s+\\S+\\s+${ws} \\(Acme\\)$`, 'm'),
    );
    assert.match(human.stdout, new RegExp(`^${second.id}\\s+list-b@example\\.com\\s+\\S+\\s+-$`, 'm'));
  });

  test('reset-password without --password-stdin prints a new password once; it signs in, the old one no longer does; sessions end', async () => {
    const account = create('reset@example.com', ws);
    const session = await signIn('reset@example.com', PASSWORD);
    assert.ok(session);
    assert.equal(await sessionOpensDashboard(server.url, session), true);

    const result = runCli(['account', 'reset-password', account.id, '--json'], env);
    const reset = jsonOf<{ account: Account; password: string; sessions_ended: number }>(result);
    assert.equal(reset.account.id, account.id);
    assert.equal(reset.sessions_ended, 1);
    assert.match(reset.password, /^[A-Za-z0-9_-]{24}$/);
    assert.equal(result.stderr, '');

    assert.equal(await sessionOpensDashboard(server.url, session), false, 'the old session ended');
    assert.equal(await signIn('reset@example.com', PASSWORD), undefined, 'the old password is refused');
    const fresh = await signIn('reset@example.com', reset.password);
    assert.ok(fresh, 'the new password signs in');
    assert.equal(await sessionOpensDashboard(server.url, fresh), true);

    // Audited, with no password in it.
    const [entry] = auditOf(ws, 'account.password_reset');
    assert.equal(entry?.target, account.id);
    assert.deepEqual(entry?.details, { email: 'reset@example.com', sessions_ended: 1 });
    assert.equal(JSON.stringify(auditOf(ws, 'account.password_reset')).includes(reset.password), false);

    // Human-readable: the password once on stdout, the warning on stderr.
    const human = runCli(['account', 'reset-password', account.id], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^password\s+[A-Za-z0-9_-]{24}$/m);
    assert.match(human.stderr, /shown this once/);
  });

  test('reset-password lifts the sign-in lock of a locked-out operator; --password-stdin sets the password given', async () => {
    const account = create('locked@example.com', ws);
    await awayFromSigninWindowEnd();
    for (let i = 0; i < 5; i++) await signInOverHttp(server.url, 'locked@example.com', 'wrong password!');
    const locked = await signInOverHttp(server.url, 'locked@example.com', PASSWORD);
    assert.equal(locked.status, 429, 'locked out, even with the right password');

    const next = 'the operator chose this one';
    const result = runCli(
      ['account', 'reset-password', account.id, '--password-stdin', '--json'],
      env,
      `${next}\n`,
    );
    const reset = jsonOf<Record<string, unknown>>(result);
    assert.equal('password' in reset, false, 'a password given is never printed back');
    assert.equal(result.stdout.includes(next), false);
    assert.ok(await signIn('locked@example.com', next), 'signs in at once with the new password');
  });

  test('reset-password refuses a short, empty or oversized password from stdin, and changes nothing', async () => {
    const account = create('keep@example.com', ws);
    const reset = (input: string) =>
      runCli(['account', 'reset-password', account.id, '--password-stdin', '--json'], env, input);
    const short = reset('short');
    assertCleanFailure(short, /at least 10 characters/);
    assert.equal(short.status, 1);
    const empty = reset('');
    assertCleanFailure(empty, /standard input held no password/);
    assert.equal(empty.status, 2);
    assertCleanFailure(reset('x'.repeat(1_000_000)), /at most 200 characters/);
    assert.ok(await signIn('keep@example.com', PASSWORD), 'the password is unchanged');
    assert.deepEqual(
      auditOf(ws, 'account.password_reset').filter((e) => e.target === account.id),
      [],
    );
  });

  test("remove: refused for a workspace's last member (nothing changes); otherwise removed, signed out, audited", async () => {
    const lonely = createWorkspace(env, 'Lonely');
    const only = create('only@example.com', lonely);
    const refused = runCli(['account', 'remove', only.id, '--json'], env);
    const problem = assertCleanFailure(refused, new RegExp(`last member of ${lonely} \\(Lonely\\)`));
    assert.equal(problem?.code, 'conflict');
    assert.equal(refused.status, 1);
    assert.ok(cliJson<Account[]>(['account', 'list'], env).some((a) => a.id === only.id));

    const leaving = create('leaving@example.com', lonely);
    const session = await signIn('leaving@example.com', PASSWORD);
    assert.ok(session);
    const removed = jsonOf<Account>(runCli(['account', 'remove', leaving.id, '--json'], env));
    assert.deepEqual(removed, leaving);
    assert.equal(await sessionOpensDashboard(server.url, session), false, 'its session ended at once');
    assert.equal(await signIn('leaving@example.com', PASSWORD), undefined);
    assert.equal(
      cliJson<Account[]>(['account', 'list'], env).some((a) => a.id === leaving.id),
      false,
    );
    const [entry] = auditOf(lonely, 'account.removed');
    assert.equal(entry?.target, leaving.id);
    assert.deepEqual(entry?.details, { email: 'leaving@example.com' });
    // The e-mail is free again.
    create('leaving@example.com');
  });

  test('remove, racing for the last two members of a workspace: exactly one goes, one member stays', async () => {
    for (let round = 0; round < 3; round++) {
      const pair = createWorkspace(env, `Pair ${round}`);
      const a = create(`race-a${round}@example.com`, pair);
      const b = create(`race-b${round}@example.com`, pair);
      const results = await Promise.all([
        runCliAsync(['account', 'remove', a.id, '--json'], env),
        runCliAsync(['account', 'remove', b.id, '--json'], env),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), [0, 1], results.map((r) => r.stderr).join(' | '));
      const failed = results.find((r) => r.status === 1);
      assert.ok(failed);
      assertCleanFailure(failed, /last member/);
      const left = cliJson<Account[]>(['account', 'list'], env).filter((x) =>
        x.workspaces.some((w) => w.id === pair),
      );
      assert.equal(left.length, 1);
    }
  });

  test('bad ids: unknown (exit 1), missing, control characters or huge (exit 2), extra arguments (exit 2)', async () => {
    const cases: [string[], RegExp, number][] = [
      [['account', 'remove', 'usr_nope'], /No account usr_nope/, 1],
      [['account', 'reset-password', 'usr_nope'], /No account usr_nope/, 1],
      [['account', 'remove'], /usage: phone-verify account remove ACCOUNT_ID/, 2],
      [['account', 'reset-password'], /usage: phone-verify account reset-password ACCOUNT_ID/, 2],
      [['account', 'remove', 'usr_\u0001x'], /ACCOUNT_ID: must not hold control characters/, 2],
      [['account', 'reset-password', 'usr_\nx'], /ACCOUNT_ID: must not hold control characters/, 2],
      [['account', 'remove', `usr_${'x'.repeat(100_000)}`], /ACCOUNT_ID: at most 100 characters/, 2],
      [['account', 'remove', 'usr_\u202e\u200bx'], /No account/, 1],
      [['account', 'remove', 'a', 'b'], /unexpected argument \(account remove takes one\)/, 2],
      [['account', 'list', 'extra'], /unexpected argument \(account list takes none\)/, 2],
      [
        ['account', 'reset-password', 'usr_x', '--password', 'y'],
        /unknown option --password; did you mean --password-stdin\?/,
        2,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => runCliAsync([...args, '--json'], env)));
    results.forEach((result, i) => {
      const [args, reason, status] = cases[i] as [string[], RegExp, number];
      assertCleanFailure(result, reason);
      assert.equal(result.status, status, args.join(' ').slice(0, 80));
    });
  });
});
