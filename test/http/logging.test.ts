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

test('one log line per request at info: the completed line carries method, URL, status and time', async () => {
  const handle = await openTestStore();
  const services = createServices({ store: handle.store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
  type Line = {
    msg: string;
    reqId: string;
    responseTime: number;
    req: { method: string; url: string };
    res: { statusCode: number };
  };
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await buildApp({ services, logger: { level: 'info', stream } });
  try {
    const ws = await seedWorkspace(services);
    await app.ready();
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/v1/ping', headers: { 'x-api-key': ws.key } });
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const line = lines[0] as Line;
    assert.equal(line.msg, 'request completed');
    assert.deepEqual([line.req.method, line.req.url], ['GET', '/v1/ping']);
    assert.equal(line.res.statusCode, 200);
    assert.equal(typeof line.responseTime, 'number');
    assert.match(line.reqId, /^req_/);
  } finally {
    await app.close();
    await handle.close();
  }
});
