// Issue "Abuse and fraud", item 2: numbers in premium-rate, shared-cost, UAN, pager and personal-number ranges
// (libphonenumber's types) are refused as destinations on both channels: 403 destination_blocked with reason
// number_type, before anything is stored or handed to a carrier.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listOutbox } from '../../src/delivery/outbox.js';
import { type Client, client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { assertProblem, sendOk } from '../helpers/verification.js';

const REFUSED = [
  { phone: '+611900123456', kind: 'premium-rate', country: 'AU' },
  { phone: '+19005550123', kind: 'premium-rate', country: 'US' },
  { phone: '+449098765432', kind: 'premium-rate', country: 'GB' },
  { phone: '+64900123456', kind: 'premium-rate', country: 'NZ' },
  { phone: '+611300123456', kind: 'shared-cost', country: 'AU' },
  { phone: '+61131234', kind: 'shared-cost', country: 'AU' },
  { phone: '+445512345678', kind: 'universal access (UAN)', country: 'GB' },
  { phone: '+447640123456', kind: 'pager', country: 'GB' },
  { phone: '+447012345678', kind: 'personal-number', country: 'GB' },
];

describe('destinations in refused ranges', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: string;

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
  });
  after(() => t.close());

  for (const { phone, kind, country } of REFUSED) {
    test(`${phone} (${country} ${kind}) is refused for SMS and voice with 403 destination_blocked, reason number_type`, async () => {
      for (const channel of ['sms', 'voice']) {
        const problem = assertProblem(await api.send({ phone, channel }), 403, 'destination_blocked');
        assert.equal(problem.reason, 'number_type', channel);
        assert.match(String(problem.detail), new RegExp(kind.replace(/[()]/g, '\\$&')));
      }
    });
  }

  test('a refused send stores nothing and hands nothing over: no verification, no job, no outbox message', async () => {
    for (const { phone } of REFUSED) await api.send({ phone, channel: 'sms' });
    const rows = await t.store.db
      .selectFrom('verifications')
      .select('phone')
      .where('workspace_id', '=', workspaceId)
      .where(
        'phone',
        'in',
        REFUSED.map((r) => r.phone),
      )
      .execute();
    assert.deepEqual(rows, []);
    for (const { phone } of REFUSED) assert.deepEqual(await listOutbox(t.store.db, { to: phone }), []);
    const jobs = await t.store.db.selectFrom('delivery_jobs').select('verification_id').execute();
    assert.deepEqual(jobs, []);
  });

  test('the national form of a refused number is refused too (the type is judged after parsing)', async () => {
    const problem = assertProblem(
      await api.send({ phone: '1900 123 456', country: 'AU' }),
      403,
      'destination_blocked',
    );
    assert.equal(problem.reason, 'number_type');
  });

  test('mobile, landline and toll-free destinations are still served', async () => {
    for (const phone of ['+61412345678', '+61298765432', '+611800123456']) {
      const v = await sendOk(api, { phone, channel: 'sms' });
      assert.equal(v.status, 'pending', phone);
    }
  });

  test('an invalid number is still 400 invalid_phone, not a block', async () => {
    assertProblem(await api.send({ phone: '+6119001', channel: 'sms' }), 400, 'invalid_phone');
  });
});
