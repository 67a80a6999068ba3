// Operator interface, CLI commands `workspace delete` and `number remove` (issue 16, item 4), through the real built
// CLI beside a running server: a deletion needs --yes, takes every row of the workspace in one transaction (its
// keys fail on the next request), keeps the audit trail readable, and leaves other workspaces alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { KEPT_TABLES, WORKSPACE_TABLES } from '../../src/workspaces/deletion-repository.js';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';
import { twilioArgs } from '../helpers/carrier-fixtures.js';
import {
  assertCleanFailure,
  callServer,
  cliSuiteEnv,
  createWorkspace,
  jsonOf,
  seedWithCli,
} from '../helpers/cli-setup.js';
import { cliJson, runCli, runCliAsync, type ServerProcess, startServer } from '../helpers/process.js';
import { sessionCookieOf, sessionOpensDashboard, signInOverHttp } from '../helpers/signin.js';

const PASSWORD = 'a long enough password';

describe('CLI: workspace delete and number remove', () => {
  const { dir, env } = cliSuiteEnv();
  let server: ServerProcess;
  let handle: TestStoreHandle;

  /** Every table of the live schema with a workspace_id column. */
  async function workspaceTables(): Promise<string[]> {
    const db = handle.store.db;
    const rows =
      handle.store.dialect === 'postgres'
        ? await sql<{ name: string }>`select table_name as name from information_schema.columns
            where column_name = 'workspace_id' and table_schema = current_schema()`.execute(db)
        : await sql<{ name: string }>`select m.name as name from sqlite_master m, pragma_table_info(m.name) p
            where m.type = 'table' and p.name = 'workspace_id'`.execute(db);
    return rows.rows.map((r) => r.name).sort();
  }

  /** The rows each table holds for the workspace (tables holding none left out). */
  async function rowsOf(workspaceId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of await workspaceTables()) {
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}
        where workspace_id = ${workspaceId}`.execute(handle.store.db);
      const n = Number(rows[0]?.n ?? 0);
      if (n > 0) counts[table] = n;
    }
    const own = await sql<{
      n: number | string;
    }>`select count(*) as n from workspaces where id = ${workspaceId}`.execute(handle.store.db);
    if (Number(own.rows[0]?.n) > 0) counts.workspaces = 1;
    return counts;
  }

  before(async () => {
    server = await startServer(env);
    handle = await openTestStore(dir);
  });
  after(async () => {
    await handle.close();
    await server.stop();
  });

  test('every table with a workspace_id is either deleted with its workspace or kept on purpose', async () => {
    assert.deepEqual(await workspaceTables(), [...WORKSPACE_TABLES, ...KEPT_TABLES].sort());
  });

  test('without --yes: exit 2, says what would go, deletes nothing', async () => {
    const { ws, key } = seedWithCli(env);
    const result = runCli(['workspace', 'delete', '--workspace', ws, '--json'], env);
    const problem = assertCleanFailure(
      result,
      new RegExp(
        `workspace ${ws} \\(Acme\\) holds 1 API key\\(s\\), 1 number\\(s\\), 0 carrier account\\(s\\), 0 member\\(s\\) and 0 verification\\(s\\).*run again with --yes`,
      ),
    );
    assert.equal(problem?.code, 'invalid_usage');
    assert.equal(result.status, 2);
    assert.equal((await callServer(server.url, key, 'GET', '/v1/ping')).status, 200);
    assert.ok(cliJson<{ id: string }[]>(['workspace', 'list'], env).some((w) => w.id === ws));
  });

  test('with --yes: every row of the workspace goes in one step, its key fails on the next request, its members are signed out of it, others stay', async () => {
    const { ws, key } = seedWithCli(env);
    const other = seedWithCli(env);
    // Rows in as many of its tables as a real workspace has: a carrier account, a member with a session, sends
    // (one under an Idempotency-Key), a wrong check, the pumping guard's allow list.
    cliJson(twilioArgs(ws), env);
    jsonOf(
      runCli(
        [
          'account',
          'create',
          '--email',
          'member@example.com',
          '--password-stdin',
          '--workspace',
          ws,
          '--json',
        ],
        env,
        PASSWORD,
      ),
    );
    cliJson(['account', 'add', '--email', 'member@example.com', '--workspace', other.ws], env);
    const session = sessionCookieOf(await signInOverHttp(server.url, 'member@example.com', PASSWORD));
    assert.ok(session);
    const sent = await fetch(`${server.url}/v1/otp/send`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': 'once',
      },
      body: JSON.stringify({ phone: '+61412345678', channel: 'sms' }),
    });
    assert.equal(sent.status, 201);
    const { id: verificationId } = (await sent.json()) as { id: string };
    const check = await callServer(server.url, key, 'POST', '/v1/otp/check', {
      verification_id: verificationId,
      code: '000000',
    });
    assert.equal(check.status, 200);
    cliJson(['fraud', 'allow', '--workspace', ws, '--prefix', '+614123'], env);
    const otherBefore = await rowsOf(other.ws);

    const before = await rowsOf(ws);
    for (const table of [
      'api_keys',
      'workspace_numbers',
      'carrier_accounts',
      'memberships',
      'verifications',
      'verification_events',
      'outbox_messages',
      'idempotency_keys',
      'request_counters',
      'fraud_allow',
      'audit_log',
    ]) {
      assert.ok(before[table], `the workspace has rows in ${table} before: ${JSON.stringify(before)}`);
    }

    const result = runCli(['workspace', 'delete', '--workspace', ws, '--yes', '--json'], env);
    const deleted = jsonOf<{ id: string; name: string; deleted: boolean; counts: Record<string, number> }>(
      result,
    );
    assert.deepEqual(deleted, {
      id: ws,
      name: 'Acme',
      deleted: true,
      counts: { keys: 1, numbers: 1, carrier_accounts: 1, members: 1, verifications: 1 },
    });

    // The key fails at once; so does every read of the workspace.
    const ping = await callServer(server.url, key, 'GET', '/v1/ping');
    assert.equal(ping.status, 401);
    assertCleanFailure(runCli(['number', 'list', '--workspace', ws, '--json'], env), /No workspace/);
    assert.equal(
      cliJson<{ id: string }[]>(['workspace', 'list'], env).some((w) => w.id === ws),
      false,
    );
    // Nothing of it is left but its audit trail.
    assert.deepEqual(Object.keys(await rowsOf(ws)), ['audit_log']);
    // The member keeps its account and its other workspace; its session now looks at that one.
    assert.equal(await sessionOpensDashboard(server.url, session), true);
    const [account] = cliJson<{ email: string; workspaces: { id: string }[] }[]>(
      ['account', 'list'],
      env,
    ).filter((a) => a.email === 'member@example.com');
    assert.deepEqual(
      account?.workspaces.map((w) => w.id),
      [other.ws],
    );
    // The other workspace is untouched, its key works.
    assert.deepEqual(await rowsOf(other.ws), otherBefore);
    assert.equal((await callServer(server.url, other.key, 'GET', '/v1/ping')).status, 200);

    // The trail is readable after the deletion; its newest entry is the deletion, by the CLI.
    const [last, ...earlier] = cliJson<
      { action: string; actor: string; target: string; details: Record<string, unknown> }[]
    >(['audit', 'list', '--workspace', ws], env);
    assert.equal(last?.action, 'workspace.deleted');
    assert.equal(last?.actor, 'cli');
    assert.equal(last?.target, ws);
    assert.equal(last?.details.name, 'Acme');
    assert.equal(last?.details.keys, 1);
    assert.ok(earlier.some((e) => e.action === 'key.created'));
    assert.equal(JSON.stringify(last).includes(key), false);
  });

  test('two deletions at once: one deletes, the other finds no workspace (exit 1); one deletion entry', async () => {
    const ws = createWorkspace(env, 'Twice');
    const results = await Promise.all([
      runCliAsync(['workspace', 'delete', '--workspace', ws, '--yes', '--json'], env),
      runCliAsync(['workspace', 'delete', '--workspace', ws, '--yes', '--json'], env),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), [0, 1], results.map((r) => r.stderr).join(' | '));
    const failed = results.find((r) => r.status === 1);
    assert.ok(failed);
    assertCleanFailure(failed, new RegExp(`No workspace ${ws}`));
    const entries = cliJson<{ action: string }[]>(
      ['audit', 'list', '--workspace', ws, '--action', 'workspace.deleted'],
      env,
    );
    assert.equal(entries.length, 1);
  });

  test('bad input: unknown workspace (exit 1), missing or odd --workspace, --yes with a value (exit 2)', async () => {
    const cases: [string[], RegExp, number][] = [
      [['workspace', 'delete', '--workspace', 'ws_nope', '--yes'], /No workspace ws_nope/, 1],
      [['workspace', 'delete', '--workspace', 'ws_nope'], /No workspace ws_nope/, 1],
      [['workspace', 'delete', '--yes'], /--workspace is required/, 2],
      [['workspace', 'delete', '--workspace', 'ws_\u0001', '--yes'], /control characters/, 2],
      [['workspace', 'delete', '--workspace', `ws_${'x'.repeat(100_000)}`, '--yes'], /No workspace/, 1],
      [['workspace', 'delete', '--workspace', 'ws_x', '--yes=no'], /--yes takes no value/, 2],
      [['workspace', 'delete', '--workspace', 'ws_x', '--yse'], /did you mean --yes\?/, 2],
      [['workspace', 'delete', '--workspace', 'ws_\u202e\u200b', '--yes'], /No workspace/, 1],
    ];
    const results = await Promise.all(cases.map(([args]) => runCliAsync([...args, '--json'], env)));
    results.forEach((result, i) => {
      const [args, reason, status] = cases[i] as [string[], RegExp, number];
      assertCleanFailure(result, reason);
      assert.equal(result.status, status, args.join(' ').slice(0, 80));
    });
  });

  test('number remove NUMBER_ID: no code is sent from it again; a code sent from it before stays checkable; audited', async () => {
    const { ws, key } = seedWithCli(env);
    const [number] = cliJson<{ id: string; number: string }[]>(['number', 'list', '--workspace', ws], env);
    assert.ok(number);
    const sent = await callServer(server.url, key, 'POST', '/v1/otp/send', {
      phone: '+61412345679',
      channel: 'sms',
    });
    assert.equal(sent.status, 201);
    const [message] = cliJson<{ body: string }[]>(['outbox', '--to', '+61412345679'], env);
    const code = /(\d{6})\s*$/.exec(message?.body ?? '')?.[1];
    assert.ok(code);

    const removed = jsonOf<{ id: string; number: string }>(
      runCli(['number', 'remove', number.id, '--json'], env),
    );
    assert.deepEqual([removed.id, removed.number], [number.id, '+61491570156']);
    assert.deepEqual(cliJson(['number', 'list', '--workspace', ws], env), []);

    const checked = await callServer(server.url, key, 'POST', '/v1/otp/check', {
      verification_id: sent.body.id,
      code,
    });
    assert.equal(checked.status, 200);
    assert.equal(checked.body.verified, true, 'the code sent before the removal still checks');
    const refused = await callServer(server.url, key, 'POST', '/v1/otp/send', {
      phone: '+61412345680',
      channel: 'sms',
    });
    assert.equal(refused.status, 409, 'nothing left to send from');

    const [entry] = cliJson<{ action: string; target: string }[]>(
      ['audit', 'list', '--workspace', ws, '--action', 'number.removed'],
      env,
    );
    assert.equal(entry?.target, number.id);
    // Again: it is gone.
    const again = runCli(['number', 'remove', number.id, '--json'], env);
    assertCleanFailure(again, new RegExp(`No number ${number.id}`));
    assert.equal(again.status, 1);
  });

  test('number remove: bad ids (exit 1 unknown, exit 2 missing, control characters, huge, extra)', async () => {
    const cases: [string[], RegExp, number][] = [
      [['number', 'remove', 'num_nope'], /No number num_nope/, 1],
      [['number', 'remove'], /usage: phone-verify number remove NUMBER_ID/, 2],
      [['number', 'remove', 'num_\u0007'], /NUMBER_ID: must not hold control characters/, 2],
      [['number', 'remove', 'x'.repeat(100_001)], /NUMBER_ID: at most 100 characters/, 2],
      [['number', 'remove', 'num_a', 'num_b'], /unexpected argument \(number remove takes one\)/, 2],
      [['number', 'remove', 'num_a', '--workspace', 'ws_x'], /unknown option --workspace/, 2],
    ];
    const results = await Promise.all(cases.map(([args]) => runCliAsync([...args, '--json'], env)));
    results.forEach((result, i) => {
      const [args, reason, status] = cases[i] as [string[], RegExp, number];
      assertCleanFailure(result, reason);
      assert.equal(result.status, status, args.join(' ').slice(0, 80));
    });
  });
});
