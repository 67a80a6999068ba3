// The pumping guard's changes are in the audit trail (issue 12, item 6): settings changed (old and new values),
// allow-list entries added and removed, blocks lifted by hand, each with who did it, written in the change's
// transaction; a save that changes nothing and a refused change write nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Actor, OPERATOR } from '../../src/audit/actor.js';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import { assertProblem, clockedApp } from '../helpers/verification.js';

const ACCOUNT: Actor = { kind: 'account', id: 'usr_ops', email: 'ops@example.com', address: '203.0.113.7' };

describe('audit trail: the pumping guard', () => {
  let t: TestApp;
  let workspaceId: string;
  let key: string;

  before(async () => {
    ({ t } = await clockedApp());
    ({ workspaceId, key } = await seedWorkspace(t.services, { name: 'Guarded', pumpingGuard: 'default' }));
  });
  after(() => t.close());

  const entries = async (action?: Parameters<TestApp['services']['audit']['list']>[1]['action']) =>
    (await t.services.audit.list(workspaceId, { action, limit: 50 })).entries;

  test('a settings change records what changed, from and to, with its actor; the same values again record nothing', async () => {
    await t.services.fraud.setSettings(workspaceId, { range_limit: 25, block_seconds: 7200 }, OPERATOR);
    await t.services.fraud.setSettings(workspaceId, { range_limit: 25 }, OPERATOR);
    const [entry, ...rest] = await entries('fraud.settings_changed');
    assert.equal(rest.length, 0);
    assert.equal(entry?.actor, 'cli');
    assert.deepEqual(entry?.details, {
      from: { range_limit: 10, block_seconds: 3600 },
      to: { range_limit: 25, block_seconds: 7200 },
    });
    // A refused value writes nothing.
    await assert.rejects(t.services.fraud.setSettings(workspaceId, { range_limit: 0 }, OPERATOR));
    assert.equal((await entries('fraud.settings_changed')).length, 1);
    await t.services.fraud.setSettings(workspaceId, { range_limit: 10, block_seconds: 3600 }, OPERATOR);
  });

  test('allow-list entries added and removed are recorded with the prefix and the account', async () => {
    await t.services.fraud.allow(workspaceId, '+6141234', ACCOUNT);
    await t.services.fraud.allow(workspaceId, '+6141234', ACCOUNT); // already listed: nothing
    await t.services.fraud.disallow(workspaceId, '+6141234', ACCOUNT);
    await assert.rejects(t.services.fraud.disallow(workspaceId, '+6141234', ACCOUNT), { code: 'not_found' });
    const added = await entries('fraud.allow_added');
    const removed = await entries('fraud.allow_removed');
    assert.equal(added.length, 1);
    assert.equal(removed.length, 1);
    for (const e of [...added, ...removed]) {
      assert.deepEqual(e.details, { prefix: '+6141234' });
      assert.equal(e.actor, 'usr_ops');
      assert.equal(e.actor_email, 'ops@example.com');
      assert.equal(e.address, '203.0.113.7');
    }
  });

  test('a lifted block is recorded with its range and block; lifting a range without one records nothing', async () => {
    const api = client(t.app, key);
    for (let i = 0; i < 10; i++)
      await api.send({ phone: `+61412349${String(i).padStart(3, '0')}`, channel: 'sms' });
    assertProblem(await api.send({ phone: '+61412349010', channel: 'sms' }), 403, 'destination_blocked');
    const { lifted } = await t.services.fraud.lift(workspaceId, '+61412349', ACCOUNT);
    await assert.rejects(t.services.fraud.lift(workspaceId, '+61412349', ACCOUNT), { code: 'not_found' });
    const [entry, ...rest] = await entries('fraud.block_lifted');
    assert.equal(rest.length, 0);
    assert.equal(entry?.target, lifted[0]);
    assert.deepEqual(entry?.details, { range: '+61412349', blocks: lifted });
    assert.equal(entry?.actor_email, 'ops@example.com');
    // The Fraud page still says who lifted it.
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(block?.lifted_by, 'ops@example.com');
  });
});
