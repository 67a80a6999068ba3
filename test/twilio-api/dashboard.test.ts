// The dashboard's Workspace page shows the workspace's Twilio Verify Service SID: what a customer puts in
// `services(…)` when they point a Twilio SDK here (docs/twilio-compatibility.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { twilioServiceSid } from '../../src/twilio-api/sids.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { signedIn } from '../helpers/dashboard.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test("the Workspace page shows the workspace's VA… Service SID, and only its own", async () => {
  const ws = await seedWorkspace(t.services, { name: 'Acme' });
  const other = await seedWorkspace(t.services, { name: 'Globex' });
  const browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  const res = await browser.get('/dashboard/settings');
  assert.equal(res.statusCode, 200);
  const line = /<p id="twilio-service-sid">([\s\S]*?)<\/p>/.exec(res.body)?.[1] ?? '';
  assert.match(line, new RegExp(`<code>${twilioServiceSid(ws.workspaceId)}</code>`));
  assert.equal(res.body.includes(twilioServiceSid(other.workspaceId)), false);
});
