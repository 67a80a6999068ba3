// Operator interface, CLI commands: `account create` and `account add`, through the real built CLI; an account
// made this way signs in to the dashboard of a real server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { runCli, type ServerProcess, startServer } from '../helpers/process.js';
import { sessionCookieOf, signInOverHttp } from '../helpers/signin.js';

const PASSWORD = 'a long enough password';

interface Account {
  id: string;
  email: string;
  created_at: string;
  workspaces: { id: string; name: string }[];
}

describe('CLI: account commands', () => {
  const { env } = cliSuiteEnv();
  let wsId = '';
  let otherWs = '';

  before(() => {
    wsId = createWorkspace(env, 'Acme');
    otherWs = createWorkspace(env, 'Globex');
  });

  test('account create --password-stdin --workspace --json prints { id, email, created_at, workspaces }, never the password or its hash', () => {
    const result = runCli(
      ['account', 'create', '--email', 'Ops@Example.com', '--password-stdin', '--workspace', wsId, '--json'],
      env,
      `${PASSWORD}\n`,
    );
    const account = jsonOf<Account>(result);
    assert.deepEqual(Object.keys(account).sort(), ['created_at', 'email', 'id', 'workspaces']);
    assert.match(account.id, /^usr_/);
    assert.equal(account.email, 'ops@example.com');
    assert.match(account.created_at, TIMESTAMP);
    assert.deepEqual(account.workspaces, [{ id: wsId, name: 'Acme' }]);
    assert.equal(result.stdout.includes(PASSWORD), false);
    assert.equal(result.stderr.includes(PASSWORD), false);
    assert.doesNotMatch(result.stdout, /scrypt|password|hash/i);
  });

  test('account create --password works too, and without --workspace the account belongs to none', () => {
    const account = jsonOf<Account>(
      runCli(['account', 'create', '--email', 'dev@example.com', '--password', PASSWORD, '--json'], env),
    );
    assert.equal(account.email, 'dev@example.com');
    assert.deepEqual(account.workspaces, []);
  });

  test('the human-readable output names the account and its workspaces, without the password', () => {
    const result = runCli(
      ['account', 'create', '--email', 'human@example.com', '--password-stdin', '--workspace', wsId],
      env,
      PASSWORD,
    );
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /human@example\.com/);
    assert.ok(result.stdout.includes(wsId));
    assert.equal(result.stdout.includes(PASSWORD), false);
  });

  test('account create fails cleanly: no password, both password options, a short password, a taken e-mail, an unknown workspace', () => {
    const base = ['account', 'create', '--email', 'x@example.com', '--json'];
    assertCleanFailure(runCli(base, env), /--password-stdin/);
    assertCleanFailure(
      runCli([...base, '--password-stdin', '--password', PASSWORD], env, PASSWORD),
      /not both/,
    );
    assertCleanFailure(runCli([...base, '--password-stdin'], env, ''), /no password/);
    assertCleanFailure(runCli([...base, '--password-stdin'], env, 'short'), /at least 10/);
    assertCleanFailure(
      runCli(['account', 'create', '--email', 'not-an-address', '--password', PASSWORD, '--json'], env),
      /e-mail/,
    );
    // Bounded input: an e-mail past 254 characters is refused naming the option, and nothing is stored.
    const long = `${'a'.repeat(243)}@example.com`;
    assertCleanFailure(
      runCli(['account', 'create', '--email', long, '--password', PASSWORD, '--json'], env),
      /^error: --email: must be at most 254 characters\n$/,
    );
    assertCleanFailure(
      runCli(['account', 'add', '--email', long, '--workspace', wsId, '--json'], env),
      /^error: --email: must be at most 254 characters\n$/,
    );
    assertCleanFailure(
      runCli(
        ['account', 'create', '--email', 'ops@example.com', '--password-stdin', '--json'],
        env,
        PASSWORD,
      ),
      /exists already/,
    );
    assertCleanFailure(
      runCli([...base, '--password-stdin', '--workspace', 'ws_nope'], env, PASSWORD),
      /No workspace/,
    );
    // Nothing was created by the failures: x@example.com can still be made.
    jsonOf<Account>(runCli([...base, '--password-stdin'], env, PASSWORD));
  });

  test('account add --email --workspace adds an existing account to a workspace (and again is harmless)', () => {
    const account = jsonOf<Account>(
      runCli(['account', 'add', '--email', 'ops@example.com', '--workspace', otherWs, '--json'], env),
    );
    assert.deepEqual(account.workspaces.map((w) => w.id).sort(), [wsId, otherWs].sort());
    const again = jsonOf<Account>(
      runCli(['account', 'add', '--email', 'ops@example.com', '--workspace', otherWs, '--json'], env),
    );
    assert.equal(again.workspaces.length, 2);
    assertCleanFailure(
      runCli(['account', 'add', '--email', 'nobody@example.com', '--workspace', wsId, '--json'], env),
      /No account/,
    );
    assertCleanFailure(
      runCli(['account', 'add', '--email', 'ops@example.com', '--workspace', 'ws_nope', '--json'], env),
      /No workspace/,
    );
    assertCleanFailure(
      runCli(['account', 'add', '--email', 'ops@example.com', '--json'], env),
      /--workspace/,
    );
  });

  describe('an account created with the CLI signs in to the dashboard of a running server', () => {
    let server: ServerProcess | undefined;
    before(async () => {
      server = await startServer(env);
    });
    after(async () => {
      await server?.stop();
    });

    test('right password: a session that opens the dashboard; wrong password: no session', async () => {
      assert.ok(server);
      const ok = await signInOverHttp(server.url, 'ops@example.com', PASSWORD);
      assert.equal(ok.status, 302);
      assert.equal(ok.headers.get('location'), '/dashboard');
      const session = sessionCookieOf(ok);
      assert.ok(session, 'a session cookie is set');
      const page = await fetch(`${server.url}/dashboard`, {
        headers: { cookie: session },
        redirect: 'manual',
      });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /ops@example\.com/);

      const wrong = await signInOverHttp(server.url, 'ops@example.com', 'not the password');
      assert.equal(wrong.status, 401);
      assert.equal(sessionCookieOf(wrong), undefined);
    });
  });
});
