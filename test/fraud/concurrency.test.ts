// The velocity rule holds under concurrency (docs/api.md "Pumping guard"): 30 sends at once to 30 distinct numbers
// of one range let exactly 10 through. On PostgreSQL they hold 30 different number locks; the range's lock row,
// taken first by each, serialises the count and the block decision.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import { clockedApp } from '../helpers/verification.js';

describe('pumping guard under concurrency', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  before(async () => {
    ({ t } = await clockedApp());
    const ws = await seedWorkspace(t.services, { pumpingGuard: 'default' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
  });
  after(() => t.close());

  test('30 concurrent sends to 30 numbers of one range: exactly 10 succeed, the rest are refused', async () => {
    const phones = Array.from({ length: 30 }, (_, i) => `+61412777${String(i * 7).padStart(3, '0')}`);
    const answers = await Promise.all(phones.map((phone) => api.send({ phone, channel: 'sms' })));
    const statuses = answers.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 201).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 403).length, 20, statuses.join(','));
    const rows = await t.store.db
      .selectFrom('verifications')
      .select('phone')
      .where('workspace_id', '=', workspaceId)
      .execute();
    assert.equal(rows.length, 10);
    const [block, ...more] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(more.length, 0, 'one block, tripped once');
    assert.equal(block?.refused, 20);
  });
});
