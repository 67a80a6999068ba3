// Retention: settled webhook messages and attempts go a week after they settled (or were made); messages still
// being retried stay whatever their age.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { WEBHOOK_KEEP_MS } from '../../src/store/retention.js';
import { sendOk } from '../helpers/verification.js';
import { type HookedApp, hookedApp, messageRows } from './helpers.js';

let h: HookedApp;
afterEach(() => h.close());

test('delivered messages and their attempts are pruned after a week; pending ones stay', async () => {
  h = await hookedApp({ events: 'verification.created' });
  await sendOk(h.api, { phone: '+61412345001', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  h.receiver.answer = () => 500;
  h.clock.advance(WEBHOOK_KEEP_MS - 60_000);
  await sendOk(h.api, { phone: '+61412345002', channel: 'sms' });
  await h.t.services.webhookDelivery.runDue();
  assert.equal((await h.t.services.retention.prune()).webhookMessages, 0);
  h.clock.advance(120_000);
  const pruned = await h.t.services.retention.prune();
  assert.equal(pruned.webhookMessages, 1);
  assert.equal(pruned.webhookAttempts, 1);
  const left = await messageRows(h.t);
  assert.deepEqual(
    left.map((m) => m.state),
    ['pending'],
  );
  assert.equal((await h.t.services.webhooks.listAttempts(h.workspaceId, h.endpointId)).length, 1);
});
