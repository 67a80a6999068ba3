// Durable delivery: retries after 500s and timeouts with the same webhook-id, on the Standard Webhooks schedule
// (the injected clock moves, nothing sleeps); no duplicate after success; a 3xx is a failure and is not followed;
// only a bounded excerpt of an answer is kept; a message fails after its last attempt; five days of failures
// disable the endpoint; several processes share the work and make each attempt once.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { RETRY_DELAYS_MS } from '../../src/webhooks/schedule.js';
import { createTestApp } from '../helpers/app.js';
import { sendOk } from '../helpers/verification.js';
import { verifyWebhook } from '../helpers/webhook-receiver.js';
import { type HookedApp, hookedApp, messageRows } from './helpers.js';

const DAY = 24 * 3_600_000;
let h: HookedApp;
afterEach(() => h.close());

/** Moves the clock past the retry after `failed` failed attempts (jitter is pinned to its middle). */
const pastRetry = (failed: number) => h.clock.advance((RETRY_DELAYS_MS[failed - 1] ?? 0) + 1);

describe('webhook delivery', () => {
  test('retried after 500s with the same webhook-id, on the schedule; delivered once, never again', async () => {
    h = await hookedApp({ events: 'verification.created' });
    const answers = [500, 500, 204];
    h.receiver.answer = () => answers.shift() ?? 204;
    await sendOk(h.api, { phone: '+61412342001', channel: 'sms' });
    const run = () => h.t.services.webhookDelivery.runDue();
    assert.equal(await run(), 1);
    assert.equal(await run(), 0, 'the retry is not due before its delay');
    h.clock.advance(RETRY_DELAYS_MS[0] - 1);
    assert.equal(await run(), 0);
    h.clock.advance(2);
    assert.equal(await run(), 1);
    pastRetry(2);
    assert.equal(await run(), 1);
    const ids = new Set(h.receiver.received.map((r) => r.headers['webhook-id']));
    assert.equal(h.receiver.received.length, 3);
    assert.equal(ids.size, 1, 'one webhook-id across the retries');
    for (const r of h.receiver.received) verifyWebhook(h.secret, r);
    // Each retry is signed anew at its own time, the body unchanged.
    assert.equal(new Set(h.receiver.received.map((r) => r.body)).size, 1);
    h.clock.advance(3 * DAY);
    assert.equal(await run(), 0);
    assert.equal(h.receiver.received.length, 3, 'no duplicate after success');
    const [row] = await messageRows(h.t);
    assert.equal(row?.state, 'delivered');
    const attempts = await h.t.services.webhooks.listAttempts(h.workspaceId, h.endpointId);
    assert.deepEqual(
      attempts.map((a) => a.status),
      [204, 500, 500],
    );
    assert.equal(attempts[1]?.error, 'answered 500');
    // A success clears the endpoint's failing state.
    assert.equal((await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId)).failing_since, null);
  });

  test('a timeout is a failure, retried with the same webhook-id', async () => {
    h = await hookedApp({ events: 'verification.created', webhooks: { timeoutMs: 300 } });
    let calls = 0;
    h.receiver.answer = () => (++calls === 1 ? 'hang' : 200);
    await sendOk(h.api, { phone: '+61412342002', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    const [timedOut] = await h.t.services.webhooks.listAttempts(h.workspaceId, h.endpointId);
    assert.equal(timedOut?.status, null);
    assert.match(String(timedOut?.error), /no answer within 300 ms/);
    pastRetry(1);
    await h.t.services.webhookDelivery.runDue();
    assert.equal(h.receiver.received.length, 2);
    assert.equal(
      h.receiver.received[0]?.headers['webhook-id'],
      h.receiver.received[1]?.headers['webhook-id'],
    );
    assert.equal((await messageRows(h.t))[0]?.state, 'delivered');
  });

  test('a redirect is a failure and is not followed; an answer keeps at most a short printable excerpt', async () => {
    h = await hookedApp({ events: 'verification.created' });
    h.receiver.answer = (req) =>
      req.url === '/hooks'
        ? {
            status: 302,
            location: `${h.receiver.url}/elsewhere`,
            body: `\u0000${'x'.repeat(10_000)}\u001b[31m`,
          }
        : 204;
    await sendOk(h.api, { phone: '+61412342003', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    assert.equal(h.receiver.received.length, 1, 'the Location is never requested');
    const [attempt] = await h.t.services.webhooks.listAttempts(h.workspaceId, h.endpointId);
    assert.equal(attempt?.status, 302);
    assert.equal(attempt?.error, 'redirect not followed');
    assert.ok((attempt?.excerpt ?? '').length <= 256, 'bounded excerpt');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting none is kept
    assert.doesNotMatch(attempt?.excerpt ?? '', /[\u0000-\u001f]/);
    assert.equal((await messageRows(h.t))[0]?.state, 'pending');
  });

  test('after the last attempt of the schedule the message has failed and is not tried again', async () => {
    h = await hookedApp({ events: 'verification.created' });
    h.receiver.answer = () => 503;
    await sendOk(h.api, { phone: '+61412342004', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    for (let failed = 1; failed <= RETRY_DELAYS_MS.length; failed++) {
      pastRetry(failed);
      assert.equal(await h.t.services.webhookDelivery.runDue(), 1, `retry ${failed}`);
    }
    assert.equal(h.receiver.received.length, RETRY_DELAYS_MS.length + 1);
    h.clock.advance(2 * DAY);
    assert.equal(await h.t.services.webhookDelivery.runDue(), 0);
    assert.equal((await messageRows(h.t))[0]?.state, 'failed');
  });

  test('an endpoint failing for five days is disabled: flagged, its waiting messages failed, no more events queued', async () => {
    h = await hookedApp({ events: 'verification.created' });
    h.receiver.answer = () => 500;
    await sendOk(h.api, { phone: '+61412342005', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    const failingSince = h.clock.now();
    // Failing for a little under five days: still enabled.
    h.clock.advance(5 * DAY - 60_000);
    await sendOk(h.api, { phone: '+61412342006', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    let endpoint = await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId);
    assert.equal(endpoint.status, 'enabled');
    assert.equal(endpoint.failing_since, new Date(failingSince).toISOString());
    h.clock.advance(2 * 60_000);
    await sendOk(h.api, { phone: '+61412342007', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    endpoint = await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId);
    assert.equal(endpoint.status, 'disabled');
    assert.ok(endpoint.disabled_at);
    assert.ok((await messageRows(h.t)).every((m) => m.state !== 'pending'));
    const before = h.receiver.received.length;
    await sendOk(h.api, { phone: '+61412342008', channel: 'sms' });
    h.clock.advance(DAY);
    assert.equal(await h.t.services.webhookDelivery.runDue(), 0);
    assert.equal(h.receiver.received.length, before);
    const ws = await h.t.store.db
      .selectFrom('workspaces')
      .select('webhook_endpoints')
      .where('id', '=', h.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(ws.webhook_endpoints), 0, 'the workspace no longer emits');
    const audit = await h.t.services.audit.list(h.workspaceId, { limit: 50 });
    assert.ok(audit.entries.some((e) => e.action === 'webhook.disabled' && e.target === h.endpointId));
  });

  test('two processes on one database share the work: each message is sent exactly once', async () => {
    h = await hookedApp({ events: 'verification.created' });
    const other = await createTestApp({ dir: h.t.dir, clock: h.clock, webhooks: { allowPrivate: true } });
    try {
      for (let i = 0; i < 12; i++)
        await sendOk(h.api, { phone: `+614123421${String(i).padStart(2, '0')}`, channel: 'sms' });
      await Promise.all([
        h.t.services.webhookDelivery.runDue(),
        other.services.webhookDelivery.runDue(),
        h.t.services.webhookDelivery.runDue(),
        other.services.webhookDelivery.runDue(),
      ]);
      const ids = h.receiver.received.map((r) => r.headers['webhook-id']);
      assert.equal(ids.length, 12);
      assert.equal(new Set(ids).size, 12);
    } finally {
      await other.close();
    }
  });
});
