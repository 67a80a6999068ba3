// Dashboard quality: one navigation entry is marked current (aria-current="page") on every page, the one the
// page lies under most specifically (API keys lies under Workspace's path too).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

describe('dashboard navigation', () => {
  let t: TestApp;
  let browser: DashboardClient;

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services);
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  for (const [path, label] of [
    ['/dashboard', 'Overview'],
    ['/dashboard/verifications', 'Verifications'],
    ['/dashboard/inbox', 'Inbox'],
    ['/dashboard/settings', 'Workspace'],
    ['/dashboard/carriers', 'Carriers'],
    ['/dashboard/settings/security/api-keys', 'API keys'],
    ['/dashboard/webhooks', 'Webhooks'],
    ['/dashboard/audit', 'Audit log'],
  ] as const) {
    test(`${path} marks exactly "${label}" as the current page`, async () => {
      const res = await browser.get(path);
      assert.equal(res.statusCode, 200);
      const nav = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(res.body)?.[1] ?? '';
      const current = [...nav.matchAll(/<a href="[^"]*" aria-current="page">([^<]*)<\/a>/g)].map((m) => m[1]);
      assert.deepEqual(current, [label]);
    });
  }
});
