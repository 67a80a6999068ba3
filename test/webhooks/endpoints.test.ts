// Endpoints as a service: the workspace's count of enabled endpoints (what tells the request paths whether to emit)
// stays exact under concurrent adds and removes, at most MAX_ENDPOINTS are enabled, and each change is audited
// with the URL's origin only (a path or query could hold a token).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { MAX_ENDPOINTS } from '../../src/webhooks/service.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(() => t.close());

async function countOf(workspaceId: string): Promise<number> {
  const row = await t.store.db
    .selectFrom('workspaces')
    .select('webhook_endpoints')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.webhook_endpoints);
}

test('concurrent adds: exactly MAX_ENDPOINTS succeed, the rest are a conflict, the count is exact', async () => {
  t = await createTestApp();
  const { workspaceId } = await seedWorkspace(t.services);
  const results = await Promise.allSettled(
    Array.from({ length: MAX_ENDPOINTS + 5 }, (_, i) =>
      t.services.webhooks.addEndpoint({ workspaceId, url: `https://h${i}.example.com/` }, OPERATOR),
    ),
  );
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  assert.equal(ok, MAX_ENDPOINTS);
  for (const r of results) {
    if (r.status === 'rejected') assert.equal((r.reason as { code: string }).code, 'conflict');
  }
  assert.equal(await countOf(workspaceId), MAX_ENDPOINTS);
  assert.equal((await t.services.webhooks.listEndpoints(workspaceId)).length, MAX_ENDPOINTS);
});

test('concurrent removes of one endpoint: one succeeds, the count drops by one', async () => {
  t = await createTestApp();
  const { workspaceId } = await seedWorkspace(t.services);
  const a = await t.services.webhooks.addEndpoint({ workspaceId, url: 'https://a.example.com/' }, OPERATOR);
  await t.services.webhooks.addEndpoint({ workspaceId, url: 'https://b.example.com/' }, OPERATOR);
  const results = await Promise.allSettled(
    Array.from({ length: 6 }, () => t.services.webhooks.removeEndpoint(a.id, OPERATOR)),
  );
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.equal(await countOf(workspaceId), 1);
});

test('another workspace cannot see or act on an endpoint; audit entries hold the origin, not the path', async () => {
  t = await createTestApp();
  const one = await seedWorkspace(t.services, { name: 'One' });
  const two = await seedWorkspace(t.services, { name: 'Two' });
  const added = await t.services.webhooks.addEndpoint(
    {
      workspaceId: one.workspaceId,
      url: 'https://h.example.com/hook?token=s3cr3t',
      events: 'verification.verified',
    },
    OPERATOR,
  );
  await assert.rejects(t.services.webhooks.getEndpoint(two.workspaceId, added.id), /No webhook endpoint/);
  await assert.rejects(t.services.webhooks.listAttempts(two.workspaceId, added.id), /No webhook endpoint/);
  await assert.rejects(
    t.services.webhooks.sendTest(two.workspaceId, added.id, OPERATOR),
    /No webhook endpoint/,
  );
  await assert.rejects(
    t.services.webhooks.removeEndpoint(added.id, OPERATOR, two.workspaceId),
    /No webhook endpoint/,
  );
  const audit = await t.services.audit.list(one.workspaceId, { limit: 10 });
  const entry = audit.entries.find((e) => e.action === 'webhook.added');
  assert.ok(entry);
  assert.equal(JSON.stringify(entry).includes('s3cr3t'), false);
  assert.equal(JSON.stringify(entry).includes('https://h.example.com'), true);
});
