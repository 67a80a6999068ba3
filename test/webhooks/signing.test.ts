// Signing and secret rotation: every message verifies with the standardwebhooks package under the endpoint's
// secret; after `rotate-secret` the header carries both signatures for 24 hours (receivers holding either secret
// accept it), then only the new one. Secrets are sealed at rest and never in the audit trail.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { sendOk } from '../helpers/verification.js';
import { verifyWebhook } from '../helpers/webhook-receiver.js';
import { type HookedApp, hookedApp } from './helpers.js';

let h: HookedApp;
afterEach(() => h.close());

test('secrets are whsec_ + base64 of 32 bytes, sealed at rest, never in the audit trail', async () => {
  h = await hookedApp();
  assert.match(h.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(h.secret.slice(6), 'base64').length, 32);
  const rotated = await h.t.services.webhooks.rotateSecret(h.endpointId, OPERATOR);
  const rows = await h.t.store.db.selectFrom('webhook_endpoints').selectAll().execute();
  const stored = JSON.stringify(rows);
  const audit = JSON.stringify(await h.t.services.audit.list(h.workspaceId, { limit: 50 }));
  for (const secret of [h.secret, rotated.secret]) {
    const raw = secret.slice(6);
    assert.equal(stored.includes(raw), false, 'sealed at rest');
    assert.equal(audit.includes(raw), false, 'never audited');
  }
  assert.match(audit, /webhook\.added/);
  assert.match(audit, /webhook\.secret_rotated/);
  // The listing shows no secret either.
  const listed = JSON.stringify(await h.t.services.webhooks.listEndpoints(h.workspaceId));
  assert.equal(listed.includes(h.secret.slice(6)), false);
  assert.equal(listed.includes(rotated.secret.slice(6)), false);
});

test('rotation: both secrets sign for 24 hours, then only the new one', async () => {
  h = await hookedApp({ events: 'verification.created' });
  const old = h.secret;
  const rotated = await h.t.services.webhooks.rotateSecret(h.endpointId, OPERATOR);
  assert.notEqual(rotated.secret, old);
  assert.equal(rotated.previous_secret_expires_at, new Date(h.clock.now() + 24 * 3_600_000).toISOString());
  await sendOk(h.api, { phone: '+61412343001', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  const during = h.receiver.received.at(-1);
  assert.ok(during);
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
  verifyWebhook(old, during);
  verifyWebhook(rotated.secret, during);

  h.clock.advance(24 * 3_600_000 + 1000);
  await sendOk(h.api, { phone: '+61412343002', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  const after = h.receiver.received.at(-1);
  assert.ok(after && after !== during);
  assert.equal(String(after.headers['webhook-signature']).split(' ').length, 1);
  verifyWebhook(rotated.secret, after);
  assert.throws(() => verifyWebhook(old, after), /No matching signature/);
});

test('a tampered body or another secret fails the package verification', async () => {
  h = await hookedApp({ events: 'verification.created' });
  await sendOk(h.api, { phone: '+61412343003', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  const got = h.receiver.received[0];
  assert.ok(got);
  assert.throws(() => verifyWebhook(h.secret, { ...got, body: got.body.replace('pending', 'verified') }));
  assert.throws(() => verifyWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got));
});
