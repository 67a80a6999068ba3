// Issue 12, item 6, through the real built CLI: every command that changes a workspace writes one audit entry by
// the operator (`cli`, no e-mail, no address); `audit list --workspace WS_ID --json` prints them as one JSON array,
// newest first, filtered by --action and --actor and cut at --limit; a bad option is a usage error (exit 2) and
// an unknown workspace a failure (exit 1), each one line on stderr; no credential or key is ever in the output.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { AUDIT_ACTIONS } from '../../src/vocabulary/audit-actions.js';
import { TWILIO, twilioArgs } from '../helpers/carrier-fixtures.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { type CliResult, cliJson, runCli, runCliAsync } from '../helpers/process.js';

interface Entry {
  id: string;
  workspace_id: string;
  at: string;
  actor: string;
  actor_email: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  address: string | null;
}

describe('audit trail: the CLI', () => {
  const { env } = cliSuiteEnv();
  let ws = '';
  let second = '';

  const list = (...args: string[]) => cliJson<Entry[]>(['audit', 'list', '--workspace', ws, ...args], env);
  /** Runs a command and returns the one entry it added to the workspace's trail. */
  function entryOf(args: string[], workspace = ws, input?: string): Entry {
    const before = new Set(
      cliJson<Entry[]>(['audit', 'list', '--workspace', workspace, '--limit', '500'], env).map((e) => e.id),
    );
    const result = runCli([...args, '--json'], env, input);
    assert.equal(result.status, 0, result.stderr);
    const added = cliJson<Entry[]>(['audit', 'list', '--workspace', workspace, '--limit', '500'], env).filter(
      (e) => !before.has(e.id),
    );
    assert.equal(added.length, 1, JSON.stringify(added));
    const [entry] = added as [Entry];
    assert.equal(entry.actor, 'cli');
    assert.equal(entry.actor_email, null);
    assert.equal(entry.address, null);
    assert.equal(entry.workspace_id, workspace);
    return entry;
  }

  before(() => {
    ws = createWorkspace(env, 'Audit Co', { pumpingGuard: 'default' });
    second = createWorkspace(env, 'Second Co', { pumpingGuard: 'default' });
  });

  test('workspace create, number add, key create and revoke: one entry each, by the operator', () => {
    const [created] = list();
    assert.equal(created?.action, 'workspace.created');
    assert.equal(created?.target, ws);
    assert.deepEqual(created?.details, { name: 'Audit Co' });

    const number = entryOf(['number', 'add', '--workspace', ws, '--number', '+61491570156']);
    assert.equal(number.action, 'number.added');
    assert.match(String(number.target), /^num_/);
    assert.deepEqual(number.details, {
      number: '+61491570156',
      type: 'mobile',
      country: 'AU',
      carrier_id: null,
    });

    const keyed = entryOf(['key', 'create', '--workspace', ws, '--name', 'backend', '--scopes', 'otp']);
    const [key] = cliJson<{ id: string; prefix: string }[]>(['key', 'list', '--workspace', ws], env);
    assert.equal(keyed.action, 'key.created');
    assert.equal(keyed.target, key?.id);
    assert.deepEqual(keyed.details, {
      name: 'backend',
      prefix: key?.prefix,
      scopes: ['otp'],
      mode: 'live',
      expires_at: null,
    });

    const revoked = entryOf(['key', 'revoke', key?.id ?? '']);
    assert.equal(revoked.action, 'key.revoked');
    assert.deepEqual(revoked.details, { name: 'backend', prefix: key?.prefix });
  });

  test('carrier add, number set-carrier, carrier rotate and remove; the base URL kept as its origin only', () => {
    const added = entryOf([
      ...twilioArgs(ws),
      '--base-url',
      'https://edge.example.com/twilio?token=not-in-the-trail',
    ]);
    assert.equal(added.action, 'carrier.added');
    assert.match(String(added.target), /^car_/);
    assert.deepEqual(added.details, { type: 'twilio', base_url: 'https://edge.example.com' });
    const carrier = String(added.target);

    const moved = entryOf([
      'number',
      'set-carrier',
      '--workspace',
      ws,
      '--number',
      '+61491570156',
      '--carrier',
      carrier,
    ]);
    assert.equal(moved.action, 'number.carrier_changed');
    assert.deepEqual(moved.details, { number: '+61491570156', from: null, to: carrier });

    const rotated = entryOf([
      'carrier',
      'rotate',
      carrier,
      '--account-sid',
      TWILIO.accountSid,
      '--auth-token',
      'twilio-auth-token-rotated-by-cli',
      '--base-url',
      '',
    ]);
    assert.equal(rotated.action, 'carrier.rotated');
    assert.equal(rotated.target, carrier);
    assert.deepEqual(rotated.details, {
      type: 'twilio',
      base_url: { from: 'https://edge.example.com', to: null },
    });

    entryOf(['number', 'set-carrier', '--workspace', ws, '--number', '+61491570156', '--carrier', 'none']);
    const removed = entryOf(['carrier', 'remove', carrier]);
    assert.equal(removed.action, 'carrier.removed');
    assert.deepEqual(removed.details, { type: 'twilio' });

    const everything = runCli(['audit', 'list', '--workspace', ws, '--limit', '500', '--json'], env).stdout;
    for (const secret of [TWILIO.authToken, 'twilio-auth-token-rotated-by-cli', 'not-in-the-trail']) {
      assert.equal(everything.includes(secret), false, `audit list printed ${secret}`);
    }
  });

  test('workspace limits, account create and account add: the change, and the member by id and e-mail', () => {
    const limits = entryOf(['workspace', 'limits', '--workspace', ws, '--sends-per-number', '20']);
    assert.equal(limits.action, 'limits.changed');
    assert.equal(limits.target, ws);
    assert.deepEqual(limits.details, { from: { send_limit: 5 }, to: { send_limit: 20 } });

    const member = entryOf(
      ['account', 'create', '--email', 'Ops@Example.com', '--password-stdin', '--workspace', ws],
      ws,
      'a long enough password',
    );
    assert.equal(member.action, 'member.added');
    assert.match(String(member.target), /^usr_/);
    assert.deepEqual(member.details, { email: 'ops@example.com' });

    const joined = entryOf(['account', 'add', '--email', 'ops@example.com', '--workspace', second], second);
    assert.equal(joined.action, 'member.added');
    assert.equal(joined.target, member.target);
    // A member already: nothing changes, nothing is recorded.
    const count = cliJson<Entry[]>(['audit', 'list', '--workspace', second], env).length;
    cliJson(['account', 'add', '--email', 'ops@example.com', '--workspace', second], env);
    assert.equal(cliJson<Entry[]>(['audit', 'list', '--workspace', second], env).length, count);
  });

  test('audit list --json: one array, newest first, each entry with exactly its fields; --action, --actor, --limit', () => {
    const all = list('--limit', '500');
    assert.ok(all.length >= 10);
    for (const entry of all) {
      assert.deepEqual(Object.keys(entry).sort(), [
        'action',
        'actor',
        'actor_email',
        'address',
        'at',
        'details',
        'id',
        'target',
        'workspace_id',
      ]);
      assert.match(entry.id, /^aud_[0-9A-Za-z]{24}$/);
      assert.match(entry.at, TIMESTAMP);
      assert.ok(AUDIT_ACTIONS.includes(entry.action as never));
    }
    assert.equal(all.at(-1)?.action, 'workspace.created', 'the oldest last');
    assert.equal(all[0]?.action, 'member.added', 'the newest first');
    const ats = all.map((e) => e.at);
    assert.deepEqual([...ats].sort().reverse(), ats);

    assert.deepEqual(
      list('--limit', '2').map((e) => e.id),
      all.slice(0, 2).map((e) => e.id),
    );
    const carriers = list('--action', 'number.carrier_changed');
    assert.equal(carriers.length, 2);
    assert.ok(carriers.every((e) => e.action === 'number.carrier_changed'));
    assert.equal(list('--actor', 'cli', '--limit', '500').length, all.length);
    assert.deepEqual(list('--actor', 'system'), []);
    // The default page: 50 at most.
    assert.equal(list().length, Math.min(all.length, 50));
  });

  test('without --json: a readable table, not JSON', () => {
    const result = runCli(['audit', 'list', '--workspace', ws, '--action', 'limits.changed'], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^at\s+actor\s+action\s+target\s+details\s+address$/m);
    assert.match(
      result.stdout,
      /cli\s+limits\.changed\s+ws_\S+\s+\{"from":\{"send_limit":5\},"to":\{"send_limit":20\}\}/,
    );
    assert.throws(() => JSON.parse(result.stdout));
  });

  test('bad options are usage errors (exit 2) naming the option; an unknown workspace exits 1', async () => {
    const usage: [string[], RegExp][] = [
      [['--action', 'bogus'], /--action: must be one of/],
      [['--action', 'key.created\u200b'], /--action: must be one of/],
      [['--action', 'ключ.создан'], /--action: must be one of/],
      [['--action', 'x'.repeat(5000)], /--action: must be one of/],
      [['--action', 'key.created\u0001'], /--action: must be one of/],
      [['--actor', "Robert'); DROP TABLE audit_log;--"], /--actor: must be/],
      [['--actor', 'usr_\u202e'], /--actor: must be/],
      [['--limit', '0'], /--limit: must be a whole number from 1 to 500/],
      [['--limit', '501'], /--limit: must be a whole number from 1 to 500/],
      [['--limit', '99999999999999999999999'], /--limit: must be a whole number from 1 to 500/],
      [['--limit', '1.5'], /--limit must be a whole number/],
      [['--limit', 'ten'], /--limit must be a whole number/],
      [['--limit', ''], /--limit must be a whole number/],
      [['--limit', '١٠'], /--limit must be a whole number/],
    ];
    const results = await Promise.all(
      usage.map(([args]) => runCliAsync(['audit', 'list', '--workspace', ws, ...args, '--json'], env)),
    );
    usage.forEach(([args, reason], i) => {
      const result = results[i] as CliResult;
      assertCleanFailure(result, reason);
      assert.equal(result.status, 2, `${args.join(' ').slice(0, 60)}: ${result.stderr}`);
    });

    const [noWorkspace, controlWorkspace, unknown] = await Promise.all([
      runCliAsync(['audit', 'list', '--json'], env),
      runCliAsync(['audit', 'list', '--workspace', `${ws}\u0001`, '--json'], env),
      runCliAsync(['audit', 'list', '--workspace', 'ws_doesnotexist', '--json'], env),
    ]);
    assertCleanFailure(noWorkspace, /--workspace is required/);
    assert.equal(noWorkspace.status, 2);
    assertCleanFailure(controlWorkspace, /--workspace: must not hold control characters/);
    assert.equal(controlWorkspace.status, 2);
    assertCleanFailure(unknown, /No workspace ws_doesnotexist/);
    assert.equal(unknown.status, 1);
    assert.equal(
      jsonOf<Entry[]>(runCli(['audit', 'list', '--workspace', ws, '--json'], env)).length > 0,
      true,
    );
  });
});
