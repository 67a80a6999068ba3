// Changing the server secret: webhook signing secrets are sealed under it, so `secret reseal` seals them again
// under the new one (current and rotated-out alike), and the start-up check says what is left to do.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices } from '../../src/services.js';
import { openTestStore, seedWorkspace, TEST_PUBLIC_URL } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { startReceiver, verifyWebhook } from '../helpers/webhook-receiver.js';

const SECRET_A = 'secret-a-secret-a-secret-a-secret-a-0123456789';
const SECRET_B = 'secret-b-secret-b-secret-b-secret-b-0123456789';

test('secret reseal moves the signing secrets to the new server secret; they keep signing as before', async () => {
  const handle = await openTestStore();
  const receiver = await startReceiver();
  after(async () => {
    await receiver.close();
    await handle.close();
  });
  const clock = fakeClock(Date.now());
  const servicesWith = (secret: string, previousSecret?: string) =>
    createServices({
      store: handle.store,
      secret,
      previousSecret,
      clock,
      publicUrl: TEST_PUBLIC_URL,
      webhooks: { allowPrivate: true },
    });
  const a = servicesWith(SECRET_A);
  const { workspaceId } = await seedWorkspace(a);
  const added = await a.webhooks.addEndpoint({ workspaceId, url: receiver.url }, OPERATOR);
  const rotated = await a.webhooks.rotateSecret(added.id, OPERATOR);

  const alone = await servicesWith(SECRET_B).secretRotation.checkAtStart();
  assert.ok(alone.warnings.some((w) => w.includes(`webhook endpoint (${added.id}) do not open`)));
  const both = servicesWith(SECRET_B, SECRET_A);
  assert.ok(
    (await both.secretRotation.checkAtStart()).warnings.some((w) =>
      w.startsWith('2 webhook signing secrets are still sealed under PHONE_VERIFY_PREVIOUS_SECRET'),
    ),
  );
  assert.deepEqual((await both.secretRotation.reseal()).webhook_secrets, {
    total: 2,
    resealed: 2,
    unreadable: 0,
  });
  assert.deepEqual((await both.secretRotation.reseal()).webhook_secrets, {
    total: 2,
    resealed: 0,
    unreadable: 0,
  });

  const b = servicesWith(SECRET_B);
  assert.deepEqual((await b.secretRotation.checkAtStart()).warnings, []);
  await b.webhooks.sendTest(workspaceId, added.id, OPERATOR);
  await b.webhookDelivery.runDue();
  const got = receiver.received[0];
  assert.ok(got);
  verifyWebhook(rotated.secret, got);
  verifyWebhook(added.secret, got);
  assert.equal(got.json.type, 'webhook.test');
});
