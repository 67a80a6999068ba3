// Enabling again an endpoint the service disabled after five days of failures (`webhook enable`, the Webhooks
// page's "Enable again"): events are queued and signed with the same secret from then on, those of the disabled
// time are not; the failure streak starts afresh; the workspace's limit of enabled endpoints holds, also against
// concurrent enables; one audit entry per change; unknown, foreign and malformed ids are not found.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AppError } from '../../src/errors.js';
import { MAX_ENDPOINTS } from '../../src/webhooks/service.js';
import { seedWorkspace } from '../helpers/app.js';
import { sendOk } from '../helpers/verification.js';
import { verifyWebhook } from '../helpers/webhook-receiver.js';
import { type HookedApp, hookedApp, messageRows } from './helpers.js';

const DAY = 24 * 3_600_000;
let h: HookedApp;
afterEach(() => h.close());

/** Fails the endpoint for five days through the real delivery path, which disables it. */
async function disabledByFailures(phones: [string, string]): Promise<void> {
  h.receiver.answer = () => 500;
  await sendOk(h.api, { phone: phones[0], channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  h.clock.advance(5 * DAY + 1000);
  await sendOk(h.api, { phone: phones[1], channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  const endpoint = await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId);
  assert.equal(endpoint.status, 'disabled');
}

async function enabledCount(): Promise<number> {
  const ws = await h.t.store.db
    .selectFrom('workspaces')
    .select('webhook_endpoints')
    .where('id', '=', h.workspaceId)
    .executeTakeFirstOrThrow();
  return Number(ws.webhook_endpoints);
}

async function auditActions(): Promise<string[]> {
  const audit = await h.t.services.audit.list(h.workspaceId, { limit: 100 });
  return audit.entries.filter((e) => e.target === h.endpointId).map((e) => e.action);
}

describe('enabling a disabled webhook endpoint again', () => {
  test('events flow again under the same secret; the disabled time is not replayed; the streak starts afresh', async () => {
    h = await hookedApp({ events: 'verification.created' });
    await disabledByFailures(['+61412349001', '+61412349002']);
    const missed = await sendOk(h.api, { phone: '+61412349003', channel: 'sms' });
    assert.equal(await enabledCount(), 0);

    const enabled = await h.t.services.webhooks.enableEndpoint(h.endpointId, OPERATOR, h.workspaceId);
    assert.equal(enabled.status, 'enabled');
    assert.equal(enabled.disabled_at, null);
    assert.equal(enabled.failing_since, null);
    assert.equal(await enabledCount(), 1, 'the workspace emits again');
    assert.deepEqual(
      (await auditActions()).filter((a) => a !== 'webhook.added'),
      ['webhook.enabled', 'webhook.disabled'],
    );

    h.receiver.answer = () => 204;
    const before = h.receiver.received.length;
    const after = await sendOk(h.api, { phone: '+61412349004', channel: 'sms' });
    assert.equal(await h.t.services.webhookDelivery.runDue(), 1);
    const delivered = h.receiver.received.slice(before);
    assert.equal(delivered.length, 1);
    const [received] = delivered;
    assert.ok(received);
    const event = verifyWebhook(h.secret, received) as { data: { id: string } };
    assert.equal(event.data.id, after.id, 'the new event, signed with the unchanged secret');
    const queued = await messageRows(h.t);
    assert.ok(
      !queued.some((m) => m.verification_id === missed.id),
      'nothing of the disabled time was queued',
    );

    // A failure now starts a new five-day streak rather than disabling it at once.
    h.receiver.answer = () => 500;
    await sendOk(h.api, { phone: '+61412349005', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    const failing = await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId);
    assert.equal(failing.status, 'enabled');
    assert.equal(failing.failing_since, new Date(h.clock.now()).toISOString());
  });

  test('an enabled endpoint is left as it is: no change, no audit entry', async () => {
    h = await hookedApp();
    const view = await h.t.services.webhooks.enableEndpoint(h.endpointId, OPERATOR, h.workspaceId);
    assert.equal(view.status, 'enabled');
    assert.equal(await enabledCount(), 1);
    assert.deepEqual(await auditActions(), ['webhook.added']);
  });

  test('two enables at once: one change, one audit entry, counted once', async () => {
    h = await hookedApp({ events: 'verification.created' });
    await disabledByFailures(['+61412349011', '+61412349012']);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        h.t.services.webhooks.enableEndpoint(h.endpointId, OPERATOR, h.workspaceId),
      ),
    );
    assert.ok(results.every((r) => r.status === 'enabled'));
    assert.equal(await enabledCount(), 1);
    assert.equal((await auditActions()).filter((a) => a === 'webhook.enabled').length, 1);
  });

  test(`the limit of ${MAX_ENDPOINTS} enabled endpoints holds: a 409, and the endpoint stays disabled`, async () => {
    h = await hookedApp({ events: 'verification.created' });
    await disabledByFailures(['+61412349021', '+61412349022']);
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      await h.t.services.webhooks.addEndpoint(
        { workspaceId: h.workspaceId, url: `${h.receiver.url}/${i}` },
        OPERATOR,
      );
    }
    await assert.rejects(
      h.t.services.webhooks.enableEndpoint(h.endpointId, OPERATOR, h.workspaceId),
      (err: unknown) => err instanceof AppError && err.code === 'conflict' && /at most 20/.test(err.message),
    );
    const endpoint = await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId);
    assert.equal(endpoint.status, 'disabled');
    assert.equal(await enabledCount(), MAX_ENDPOINTS);
    assert.ok(!(await auditActions()).includes('webhook.enabled'));
  });

  test("unknown, another workspace's and malformed ids are not found, and change nothing", async () => {
    h = await hookedApp({ events: 'verification.created' });
    await disabledByFailures(['+61412349031', '+61412349032']);
    const other = await seedWorkspace(h.t.services, { name: 'Other' });
    for (const id of [
      'wh_unknown000000000000000',
      `wh_${'x'.repeat(100_000)}`,
      'wh_\u0000',
      'wh_\u202eabc',
      '',
      ' ',
    ]) {
      await assert.rejects(
        h.t.services.webhooks.enableEndpoint(id, OPERATOR, h.workspaceId),
        (err: unknown) => err instanceof AppError && err.code === 'not_found',
        JSON.stringify(id.slice(0, 20)),
      );
    }
    await assert.rejects(
      h.t.services.webhooks.enableEndpoint(h.endpointId, OPERATOR, other.workspaceId),
      (err: unknown) => err instanceof AppError && err.code === 'not_found',
    );
    const endpoint = await h.t.services.webhooks.getEndpoint(h.workspaceId, h.endpointId);
    assert.equal(endpoint.status, 'disabled');
  });
});
