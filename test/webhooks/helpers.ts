// A test app whose workspace has one webhook endpoint on a real receiver at 127.0.0.1 (private destinations
// allowed, as WEBHOOK_ALLOW_PRIVATE=true does), its clock near the wall clock so the package's timestamp check holds.
import { OPERATOR } from '../../src/audit/actor.js';
import type { WebhookOptions } from '../../src/services.js';
import { type Client, client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

export interface HookedApp {
  t: TestApp;
  clock: FakeClock;
  api: Client;
  workspaceId: string;
  receiver: Receiver;
  endpointId: string;
  secret: string;
  close(): Promise<void>;
}

export async function hookedApp(
  options: { events?: string; webhooks?: WebhookOptions } = {},
): Promise<HookedApp> {
  const clock = fakeClock(Date.now());
  const t = await createTestApp({
    clock,
    webhooks: { allowPrivate: true, timeoutMs: 1000, random: () => 0.5, ...options.webhooks },
  });
  const seeded = await seedWorkspace(t.services);
  const receiver = await startReceiver();
  const added = await t.services.webhooks.addEndpoint(
    { workspaceId: seeded.workspaceId, url: receiver.url, events: options.events },
    OPERATOR,
  );
  return {
    t,
    clock,
    api: client(t.app, seeded.key),
    workspaceId: seeded.workspaceId,
    receiver,
    endpointId: added.id,
    secret: added.secret,
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}

/** Every message row, oldest first (tests read the table to show what was queued). */
export async function messageRows(t: TestApp) {
  return t.store.db
    .selectFrom('webhook_messages')
    .selectAll()
    .orderBy('created_at')
    .orderBy('event_id')
    .execute();
}
