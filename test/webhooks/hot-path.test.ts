// The request paths of a workspace without webhook endpoints do not touch webhooks at all: with the webhook tables
// gone from the database, send, check, read (expiry included) and cancel still succeed. Whether to emit comes
// from the count of enabled endpoints read with the API key, so the statements run are those of before webhooks.
// The control: a workspace with an endpoint does write there (its send fails without the tables).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { sql } from 'kysely';
import { OPERATOR } from '../../src/audit/actor.js';
import { client, codeFor, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { wrongCode } from '../helpers/verification.js';

let t: TestApp;
afterEach(() => t.close());

async function dropWebhookTables(app: TestApp): Promise<void> {
  for (const table of ['webhook_messages', 'webhook_endpoints', 'webhook_attempts']) {
    await sql`drop table ${sql.table(table)}`.execute(app.store.db);
  }
}

test('no endpoints: send, check, read, expiry and cancel never reach a webhook table', async () => {
  const clock = fakeClock();
  t = await createTestApp({ clock, webhooks: { allowPrivate: true } });
  const api = client(t.app, (await seedWorkspace(t.services)).key);
  await dropWebhookTables(t);
  const sent = await api.send({ phone: '+61412349001', channel: 'sms' });
  assert.equal(sent.statusCode, 201, sent.body);
  const id = json<{ id: string }>(sent).id;
  const code = await codeFor(t.services, '+61412349001');
  assert.equal((await api.check({ verification_id: id, code: wrongCode(code) })).statusCode, 200);
  assert.equal(json<{ status: string }>(await api.check({ verification_id: id, code })).status, 'verified');
  const again = json<{ id: string }>(
    await api.send({ phone: '+61412349002', channel: 'sms', ttl_seconds: 60 }),
  );
  const superseding = await api.send({ phone: '+61412349002', channel: 'sms' });
  assert.equal(superseding.statusCode, 201);
  assert.equal(json<{ status: string }>(await api.get(again.id)).status, 'canceled');
  const late = json<{ id: string }>(
    await api.send({ phone: '+61412349003', channel: 'sms', ttl_seconds: 60 }),
  );
  const canceled = json<{ id: string }>(await api.send({ phone: '+61412349004', channel: 'sms' }));
  clock.advance(61_000);
  assert.equal(json<{ status: string }>(await api.get(late.id)).status, 'expired');
  assert.equal(json<{ status: string }>(await api.cancel(canceled.id)).status, 'canceled');
});

test('control: with an endpoint, the send writes its event (and fails without the tables)', async () => {
  t = await createTestApp({ webhooks: { allowPrivate: true } });
  const seeded = await seedWorkspace(t.services);
  await t.services.webhooks.addEndpoint(
    { workspaceId: seeded.workspaceId, url: 'https://h.example.com/' },
    OPERATOR,
  );
  const api = client(t.app, seeded.key);
  await dropWebhookTables(t);
  assert.equal((await api.send({ phone: '+61412349005', channel: 'sms' })).statusCode, 500);
});
