// Security: nothing secret in logs. Keys, codes and Authorization headers never reach the log stream,
// even at the most verbose level.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { buildApp, LOG_REDACT_PATHS } from '../../src/app.js';
import { listOutbox } from '../../src/delivery/outbox.js';
import { createServices } from '../../src/services.js';
import { client, openTestStore, seedWorkspace, TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';

test('logs at trace level hold no API key, no code and no Authorization header', async () => {
  const handle = await openTestStore();
  const { store } = handle;
  const services = createServices({ store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
  let logs = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  const app = await buildApp({
    services,
    logger: { level: 'trace', redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' }, stream },
  });
  try {
    const ws = await seedWorkspace(services);
    const api = client(app, ws.key);
    const sent = (await api.send({ phone: '+61412349001', channel: 'sms' })).json() as { id: string };
    const [message] = await listOutbox(store.db, { to: '+61412349001', limit: 1 });
    const code = /(\d+)$/.exec(message?.body ?? '')?.[1] ?? '';
    assert.equal(code.length, 6);
    const checked = await api.check({ verification_id: sent.id, code });
    assert.equal(checked.json().verified, true);
    await app.inject({ method: 'GET', url: '/v1/ping', headers: { 'x-api-key': ws.key } });
    await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: 'Bearer pv_live_not-a-key' },
    });

    assert.ok(logs.includes('request completed'), 'requests are logged');
    assert.equal(logs.includes(ws.key), false, 'the API key is not logged');
    assert.equal(logs.includes(ws.key.slice(8, 30)), false, 'no part of the API key is logged');
    // As a number of its own: the same digits inside a longer number (a timestamp) are not the code.
    assert.equal(new RegExp(`(?<!\\d)${code}(?!\\d)`).test(logs), false, 'the code is not logged');
    assert.equal(logs.includes('pv_live_not-a-key'), false, 'a presented Authorization header is not logged');
    assert.equal(logs.toLowerCase().includes('bearer'), false, 'no Authorization header is logged');
  } finally {
    await app.close();
    await handle.close();
  }
});
