// Issue 12, item 6: dashboard sign-ins and set-up in the audit trail. A sign-in (successful, or a wrong password
// for an existing account) is recorded with the client address in every workspace the account belongs to; an
// unknown e-mail belongs to no workspace and is recorded nowhere, nor is a sign-in the limit refuses; set-up
// records the workspace created and its first member, by the new account.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditRows, entriesAddedBy, entriesOf } from '../helpers/audit.js';
import { dashboardClient, PASSWORD } from '../helpers/dashboard.js';
import { awayFromSigninWindowEnd } from '../helpers/signin.js';

const SIGNIN = '/dashboard/signin';

describe('audit trail: sign-ins and set-up', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const signIn = (email: string, password: string, remoteAddress: string) =>
    dashboardClient(t.app, { remoteAddress }).post(
      SIGNIN,
      { email, password, next: '/dashboard' },
      { from: SIGNIN },
    );

  test('set-up records the workspace and its first member, by the new account from its address', async () => {
    const browser = dashboardClient(t.app, { remoteAddress: '198.51.100.4' });
    const res = await browser.post(
      '/dashboard/setup',
      { email: 'first@example.com', password: PASSWORD, workspace_name: 'Setup Co' },
      { from: '/dashboard/setup' },
    );
    assert.equal(res.statusCode, 302, res.body);
    const [workspace] = await t.services.workspaces.listWorkspaces();
    assert.ok(workspace);
    const [member] = await t.services.accounts.listMembers(workspace.id);
    assert.ok(member);
    const entries = (await entriesOf(t.services, workspace.id)).reverse();
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor, e.actor_email, e.address, e.target, e.details]),
      [
        [
          'workspace.created',
          member.id,
          'first@example.com',
          '198.51.100.4',
          workspace.id,
          { name: 'Setup Co' },
        ],
        [
          'member.added',
          member.id,
          'first@example.com',
          '198.51.100.4',
          member.id,
          { email: 'first@example.com' },
        ],
      ],
    );
  });

  test('a sign-in is recorded in each of the account’s workspaces, with its address; a wrong password too', async () => {
    const a = await t.services.workspaces.createWorkspace({ name: 'Alpha' }, OPERATOR);
    const b = await t.services.workspaces.createWorkspace({ name: 'Beta' }, OPERATOR);
    const account = await t.services.accounts.createAccount(
      { email: 'both@example.com', password: PASSWORD, workspaceIds: [a.id, b.id] },
      OPERATOR,
    );

    for (const ws of [a, b]) {
      const [ok] = await entriesAddedBy(t.services, ws.id, async () => {
        const res = await signIn('both@example.com', PASSWORD, '203.0.113.7');
        assert.equal(res.statusCode, 302);
      });
      assert.ok(ok);
      assert.equal(ok.action, 'signin.succeeded');
      assert.equal(ok.actor, account.id);
      assert.equal(ok.actor_email, 'both@example.com');
      assert.equal(ok.target, account.id);
      assert.equal(ok.address, '203.0.113.7');
      assert.deepEqual(ok.details, {});
    }

    const added = await entriesAddedBy(t.services, a.id, async () => {
      const res = await signIn('both@example.com', 'not the password at all', '2001:db8::5');
      assert.equal(res.statusCode, 401);
    });
    assert.deepEqual(
      added.map((e) => [e.action, e.actor, e.target, e.address]),
      [['signin.failed', account.id, account.id, '2001:db8::5']],
    );
    const inB = (await entriesOf(t.services, b.id))[0];
    assert.equal(inB?.action, 'signin.failed', 'recorded in the other workspace too');
  });

  test('an unknown e-mail, an account of no workspace and a refused sign-in are recorded nowhere', async () => {
    await t.services.accounts.createAccount({ email: 'loner@example.com', password: PASSWORD }, OPERATOR);
    const before = (await auditRows(t.store)).length;
    assert.equal((await signIn('nobody@example.com', PASSWORD, '203.0.113.9')).statusCode, 401);
    assert.equal((await signIn('loner@example.com', PASSWORD, '203.0.113.9')).statusCode, 302);
    assert.equal((await signIn('loner@example.com', 'wrong password!', '203.0.113.9')).statusCode, 401);
    assert.equal((await auditRows(t.store)).length, before);

    // Past the per-e-mail limit (5 failures in the window), an attempt is refused without being judged.
    const ws = await t.services.workspaces.createWorkspace({ name: 'Gamma' }, OPERATOR);
    await t.services.accounts.createAccount(
      { email: 'target@example.com', password: PASSWORD, workspaceIds: [ws.id] },
      OPERATOR,
    );
    await awayFromSigninWindowEnd();
    const failures = await entriesAddedBy(t.services, ws.id, async () => {
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await signIn('target@example.com', `guess number ${i}`, '203.0.113.10')).statusCode,
          401,
        );
      }
      assert.equal((await signIn('target@example.com', 'guess number 6', '203.0.113.10')).statusCode, 429);
      assert.equal((await signIn('target@example.com', PASSWORD, '203.0.113.10')).statusCode, 429);
    });
    assert.deepEqual(
      failures.map((e) => e.action),
      Array(5).fill('signin.failed'),
    );
  });
});
