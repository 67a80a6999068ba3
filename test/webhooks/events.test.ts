// Every event type end to end: a state change through the API (or the sweeper, or a delivery report) commits its
// message, the delivery sends it to a real receiver on 127.0.0.1, and the standardwebhooks package verifies it.
// Each event comes exactly once per change, its body is {type, timestamp, data: the Verification as GET shows it},
// and the code never appears in it.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Verification } from '../helpers/api-types.js';
import { codeFor, json } from '../helpers/app.js';
import { sendOk, wrongCode } from '../helpers/verification.js';
import { verifyWebhook } from '../helpers/webhook-receiver.js';
import { type HookedApp, hookedApp, messageRows } from './helpers.js';

describe('webhook events, end to end', () => {
  let h: HookedApp;
  beforeEach(async () => {
    h = await hookedApp();
    seen = 0;
  });
  afterEach(() => h.close());

  let seen = 0;
  /**
   * Delivers what is due and returns the types of what arrived since the last call, each verified by the
   * package, sorted (messages due together are sent concurrently: their order is not guaranteed).
   */
  async function deliver(): Promise<string[]> {
    await h.t.services.webhookDelivery.runDue();
    const fresh = h.receiver.received.slice(seen);
    seen = h.receiver.received.length;
    return fresh.map((r) => (verifyWebhook(h.secret, r) as { type: string }).type).sort();
  }

  /** The last received event of a type. */
  const last = (type: string) => {
    const r = h.receiver.received.filter((x) => x.json.type === type).at(-1);
    assert.ok(r, `no ${type}`);
    return r.json;
  };

  test('a send emits verification.created then verification.delivery_updated; data is the Verification as GET shows it, no code', async () => {
    const v = await sendOk(h.api, { phone: '+61412341001', channel: 'sms' });
    assert.deepEqual(await deliver(), ['verification.created', 'verification.delivery_updated']);
    const created = h.receiver.received.find((r) => r.json.type === 'verification.created');
    const updated = h.receiver.received.find((r) => r.json.type === 'verification.delivery_updated');
    assert.ok(created && updated);
    assert.equal(created.json.data.id, v.id);
    assert.equal(created.json.data.status, 'pending');
    assert.match(created.json.timestamp, /^\d{4}-\d\d-\d\dT/);
    // The body after the hand-over is exactly what GET answers.
    const got = json<Verification>(await h.api.get(v.id));
    assert.deepEqual(updated.json.data, got);
    assert.equal((updated.json.data as unknown as Verification).delivery.ok, true);
    const code = await codeFor(h.t.services, '+61412341001');
    for (const r of h.receiver.received) assert.equal(r.body.includes(code), false, 'the code is never sent');
    // Each event has its own stable id, the same for every attempt.
    assert.notEqual(created.headers['webhook-id'], updated.headers['webhook-id']);
    assert.match(String(created.headers['webhook-id']), /^msg_/);
  });

  test('verification.verified on the right code; a wrong guess with attempts left emits nothing', async () => {
    const v = await sendOk(h.api, { phone: '+61412341002', channel: 'sms' });
    const code = await codeFor(h.t.services, '+61412341002');
    await deliver();
    await h.api.check({ verification_id: v.id, code: wrongCode(code) });
    await h.api.check({ verification_id: v.id, code });
    await h.api.check({ verification_id: v.id, code }); // already verified: no change, no event
    assert.deepEqual(await deliver(), ['verification.verified']);
    assert.equal(last('verification.verified').data.status, 'verified');
    assert.deepEqual(last('verification.verified').data, json(await h.api.get(v.id)));
  });

  test('verification.failed when the last attempt is wrong', async () => {
    const v = await sendOk(h.api, { phone: '+61412341003', channel: 'sms', max_attempts: 1 });
    const code = await codeFor(h.t.services, '+61412341003');
    await deliver();
    await h.api.check({ verification_id: v.id, code: wrongCode(code) });
    assert.deepEqual(await deliver(), ['verification.failed']);
    assert.equal(last('verification.failed').data.status, 'failed');
    assert.equal(last('verification.failed').data.attempts, 1);
  });

  test('verification.canceled by cancel (once, however often it is asked) and by supersede', async () => {
    const a = await sendOk(h.api, { phone: '+61412341004', channel: 'sms' });
    await deliver();
    await h.api.cancel(a.id);
    await h.api.cancel(a.id);
    assert.deepEqual(await deliver(), ['verification.canceled']);
    assert.equal(last('verification.canceled').data.id, a.id);
    const b = await sendOk(h.api, { phone: '+61412341005', channel: 'sms' });
    await deliver();
    const c = await sendOk(h.api, { phone: '+61412341005', channel: 'sms' });
    // The supersede commits with the newer send: the older code's cancel comes in the same transaction.
    assert.deepEqual(await deliver(), [
      'verification.canceled',
      'verification.created',
      'verification.delivery_updated',
    ]);
    assert.equal(last('verification.canceled').data.id, b.id);
    assert.equal(last('verification.canceled').data.status, 'canceled');
    assert.equal(last('verification.created').data.id, c.id);
  });

  test('verification.expired from the sweeper, with nobody reading the verification; once', async () => {
    const v = await sendOk(h.api, { phone: '+61412341006', channel: 'sms', ttl_seconds: 60 });
    await deliver();
    h.clock.advance(61_000);
    assert.equal(await h.t.services.verifications.expireDue(), 1);
    assert.equal(await h.t.services.verifications.expireDue(), 0);
    await h.api.get(v.id);
    assert.deepEqual(await deliver(), ['verification.expired']);
    assert.deepEqual(last('verification.expired').data, json(await h.api.get(v.id)));
  });

  test('verification.expired when a read finds the code out of time', async () => {
    const v = await sendOk(h.api, { phone: '+61412341007', channel: 'sms', ttl_seconds: 60 });
    await deliver();
    h.clock.advance(61_000);
    assert.equal(json<Verification>(await h.api.get(v.id)).status, 'expired');
    await h.api.get(v.id);
    assert.equal(await h.t.services.verifications.expireDue(), 0);
    assert.deepEqual(await deliver(), ['verification.expired']);
  });

  test('verification.undelivered when the hand-over is rejected (…0999), with no delivery_updated', async () => {
    await sendOk(h.api, { phone: '+61412340999', channel: 'sms' });
    assert.deepEqual(await deliver(), ['verification.created', 'verification.undelivered']);
    assert.equal(last('verification.undelivered').data.status, 'undelivered');
  });

  test('a carrier failure after hand-over (…0998): delivery_updated, then undelivered', async () => {
    const v = await sendOk(h.api, { phone: '+61412340998', channel: 'sms' });
    assert.deepEqual(await deliver(), ['verification.created', 'verification.delivery_updated']);
    h.clock.advance(5_000);
    assert.equal(await h.t.services.devProvider.applyDueReports(), 1);
    assert.deepEqual(await deliver(), ['verification.undelivered']);
    assert.deepEqual(last('verification.undelivered').data, json(await h.api.get(v.id)));
  });
});

describe('webhook events: filters and workspaces without endpoints', () => {
  test('an endpoint with --events receives those types only', async () => {
    const h = await hookedApp({ events: 'verification.verified,verification.canceled' });
    try {
      const v = await sendOk(h.api, { phone: '+61412341008', channel: 'sms' });
      await h.api.check({ verification_id: v.id, code: await codeFor(h.t.services, '+61412341008') });
      await h.t.services.webhookDelivery.runDue();
      assert.deepEqual(
        h.receiver.received.map((r) => r.json.type),
        ['verification.verified'],
      );
    } finally {
      await h.close();
    }
  });

  test('a workspace whose endpoint was removed queues nothing', async () => {
    const h = await hookedApp();
    try {
      await h.t.services.webhooks.removeEndpoint(h.endpointId, { kind: 'cli' });
      const v = await sendOk(h.api, { phone: '+61412341009', channel: 'sms' });
      await h.api.cancel(v.id);
      assert.deepEqual(await messageRows(h.t), []);
      assert.equal(await h.t.services.webhookDelivery.runDue(), 0);
      assert.equal(h.receiver.received.length, 0);
    } finally {
      await h.close();
    }
  });
});

describe('webhook events: exactly once under concurrency', () => {
  test('racing cancels, checks and expiries emit one event per change', async () => {
    const h = await hookedApp({ events: 'verification.canceled,verification.verified,verification.expired' });
    try {
      const a = await sendOk(h.api, { phone: '+61412341010', channel: 'sms' });
      await Promise.all(Array.from({ length: 8 }, () => h.api.cancel(a.id)));
      const b = await sendOk(h.api, { phone: '+61412341011', channel: 'sms' });
      const code = await codeFor(h.t.services, '+61412341011');
      await Promise.all(Array.from({ length: 8 }, () => h.api.check({ verification_id: b.id, code })));
      const c = await sendOk(h.api, { phone: '+61412341012', channel: 'sms', ttl_seconds: 60 });
      h.clock.advance(61_000);
      await Promise.all([
        h.t.services.verifications.expireDue(),
        h.t.services.verifications.expireDue(),
        ...Array.from({ length: 6 }, () => h.api.get(c.id)),
      ]);
      await h.t.services.webhookDelivery.runDue();
      const byType = (type: string) =>
        h.receiver.received.filter((r) => r.json.type === type).map((r) => r.json.data.id);
      assert.deepEqual(byType('verification.canceled'), [a.id]);
      assert.deepEqual(byType('verification.verified'), [b.id]);
      assert.deepEqual(byType('verification.expired'), [c.id]);
    } finally {
      await h.close();
    }
  });
});
