// The Webhooks page over app.inject(): a disabled endpoint is flagged and can be enabled again; another workspace's
// endpoint or attempt is answered like an unknown one; the add form's inputs are attacked (NUL, odd Unicode, huge,
// unknown events, no CSRF token); the secret never appears but in the answer that created it; actions are in the
// audit trail.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { seedWorkspace } from '../helpers/app.js';
import { signedIn } from '../helpers/dashboard.js';
import { sendOk } from '../helpers/verification.js';
import { type HookedApp, hookedApp } from '../webhooks/helpers.js';

const PATH = '/dashboard/webhooks';
const DAY = 24 * 3_600_000;
let h: HookedApp;
afterEach(() => h.close());

test('an endpoint failing for five days is flagged disabled, without test or resend buttons', async () => {
  h = await hookedApp({ events: 'verification.created' });
  h.receiver.answer = () => 500;
  await sendOk(h.api, { phone: '+61412348001', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  const browser = await signedIn(h.t.app, h.t.services, {
    workspaceIds: [h.workspaceId],
    email: 'enabler@example.com',
  });
  let page = await browser.get(PATH);
  assert.match(page.body, /Failing since/);
  assert.match(page.body, /answered 500/);
  h.clock.advance(5 * DAY + 1000);
  await sendOk(h.api, { phone: '+61412348002', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  page = await browser.get(PATH);
  assert.match(page.body, /<strong>Disabled<\/strong>/);
  assert.doesNotMatch(page.body, /Send test event/);
  assert.doesNotMatch(page.body, /\/resend"/);
  assert.match(page.body, /Enable again/);

  // Enabled again from the page: CSRF required, then the flag goes and the change is audited with the account.
  const enable = `${PATH}/${h.endpointId}/enable`;
  assert.equal((await browser.post(enable, {}, { csrf: null })).statusCode, 403);
  assert.equal((await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId)).status, 'disabled');
  const res = await browser.post(enable, {});
  assert.equal(res.statusCode, 302);
  page = await browser.get(PATH);
  assert.doesNotMatch(page.body, /<strong>Disabled<\/strong>/);
  assert.doesNotMatch(page.body, /Enable again/);
  assert.match(page.body, /enabled: new events are sent to it again/);
  assert.match(page.body, /Send test event/);
  const audit = await h.t.services.audit.list(h.workspaceId, { limit: 20 });
  const entry = audit.entries.find((e) => e.action === 'webhook.enabled');
  assert.ok(entry);
  assert.equal(entry.target, h.endpointId);
  assert.equal(entry.actor_email, 'enabler@example.com');
});

test("another workspace's endpoint and attempts are not found; bad form input is a 4xx with the reason", async () => {
  h = await hookedApp({ events: 'verification.created' });
  await sendOk(h.api, { phone: '+61412348003', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  const [attempt] = await h.t.services.webhooks.listAttempts(h.workspaceId, h.endpointId);
  assert.ok(attempt);
  const other = await seedWorkspace(h.t.services, { name: 'Other' });
  const browser = await signedIn(h.t.app, h.t.services, { workspaceIds: [other.workspaceId] });
  await browser.get(PATH);
  for (const path of [
    `${PATH}/${h.endpointId}/rotate`,
    `${PATH}/${h.endpointId}/remove`,
    `${PATH}/${h.endpointId}/test`,
    `${PATH}/${h.endpointId}/enable`,
    `${PATH}/attempts/${attempt.id}/resend`,
    `${PATH}/wh_${'x'.repeat(90)}/rotate`,
  ]) {
    const res = await browser.post(path, {});
    assert.equal(res.statusCode, 404, `${path}: ${res.body.slice(0, 200)}`);
  }
  assert.equal((await h.t.services.webhooks.listEndpoints(h.workspaceId)).length, 1);

  for (const [form, reason] of [
    [{ url: 'https://a.example.com/\u0000' }, /must not contain NUL|control/],
    [{ url: 'https://a.example.com/\u202e' }, /invisible/],
    [{ url: `https://a.example.com/${'a'.repeat(3000)}` }, /at most 2048/],
    [
      { url: 'https://a.example.com/', events: ['verification.created', 'verification.bogus'] },
      /valid types/,
    ],
    [{ url: 'ftp://a.example.com/' }, /https:\/\//],
    [{ url: 'https://u:p@a.example.com/' }, /credentials/],
  ] as const) {
    const res = await browser.post(PATH, form as Record<string, string | string[]>, { from: PATH });
    assert.ok(
      res.statusCode >= 400 && res.statusCode < 500,
      `${JSON.stringify(form).slice(0, 80)}: ${res.statusCode}`,
    );
    assert.match(res.body, reason);
  }
  const noCsrf = await browser.post(PATH, { url: 'https://a.example.com/' }, { csrf: null });
  assert.equal(noCsrf.statusCode, 403);
  assert.equal((await h.t.services.webhooks.listEndpoints(other.workspaceId)).length, 0);
});

test('added from the page: the secret is in that answer only; the change is audited with the account', async () => {
  h = await hookedApp();
  const browser = await signedIn(h.t.app, h.t.services, {
    workspaceIds: [h.workspaceId],
    email: 'o@example.com',
  });
  const res = await browser.post(
    PATH,
    { url: 'https://hooks.example.com/x', events: 'verification.verified' },
    { from: PATH },
  );
  assert.equal(res.statusCode, 200);
  const secret = /id="new-webhook-secret"[^>]*value="(whsec_[^"]+)"/.exec(res.body)?.[1];
  assert.ok(secret, 'the secret is shown');
  assert.equal((await browser.get(PATH)).body.includes(secret), false);
  const audit = await h.t.services.audit.list(h.workspaceId, { limit: 5 });
  const entry = audit.entries.find((e) => e.action === 'webhook.added' && e.actor_email === 'o@example.com');
  assert.ok(entry, JSON.stringify(audit.entries));
  assert.equal(JSON.stringify(audit).includes(secret.slice(6)), false);
  await h.t.services.webhooks.removeEndpoint(h.endpointId, OPERATOR);
});
