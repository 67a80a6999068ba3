// kill -9 and webhooks, with real processes on one database: (1) a process killed after the send committed its
// event and before any attempt (it polls for webhooks only once a minute): the next process delivers it; (2) a
// process killed while its attempt hangs: once its lease has run out, the next process sends the event again with
// the same webhook-id (at-least-once), and the receiver, verifying with the standardwebhooks package, dedupes.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { callServer, cliSuiteEnv, seedWithCli } from '../helpers/cli-setup.js';
import { eventually } from '../helpers/eventually.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';
import { type Received, startReceiver } from '../helpers/webhook-receiver.js';

const { env } = cliSuiteEnv();
const hooks = { ...env, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000' };

test('kill -9 between commit and delivery, and during an attempt: nothing is lost', async () => {
  const receiver = await startReceiver();
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await receiver.close();
  });
  const { ws, key } = seedWithCli(env);
  const endpoint = cliJson<{ secret: string }>(
    ['webhook', 'add', '--workspace', ws, '--url', receiver.url, '--events', 'verification.created'],
    hooks,
  );
  const verify = (r: Received) =>
    new Webhook(endpoint.secret).verify(r.body, r.headers) as { data: { id: string } };

  // (1) Committed, never attempted: this process would look for webhooks only after a minute.
  const first = await startServer({ ...hooks, DELIVERY_POLL_MS: '60000' });
  servers.push(first);
  const one = await callServer(first.url, key, 'POST', '/v1/otp/send', {
    phone: '+61412346001',
    channel: 'sms',
  });
  assert.equal(one.status, 201);
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  assert.equal(receiver.received.length, 0);

  // (2) The next process delivers it; its own send's attempt hangs, and it is killed during it.
  const second = await startServer({ ...hooks, DELIVERY_POLL_MS: '100' });
  servers.push(second);
  await eventually('the first event, delivered by the second process', () => receiver.received.length === 1);
  assert.equal(verify(receiver.received[0] as Received).data.id, one.body.id);
  receiver.answer = () => 'hang';
  const two = await callServer(second.url, key, 'POST', '/v1/otp/send', {
    phone: '+61412346002',
    channel: 'sms',
  });
  assert.equal(two.status, 201);
  await eventually('the attempt that hangs', () => receiver.received.length === 2);
  second.child.kill('SIGKILL');
  await once(second.child, 'exit');

  receiver.answer = () => 204;
  const third = await startServer({ ...hooks, DELIVERY_POLL_MS: '100' });
  servers.push(third);
  await eventually('the hanging event sent again', () => receiver.received.length >= 3);
  const [, hung, again] = receiver.received as [Received, Received, Received];
  assert.equal(again.headers['webhook-id'], hung.headers['webhook-id'], 'the same webhook-id');
  assert.equal(verify(again).data.id, two.body.id);
  assert.equal(again.body, hung.body);
});
