// Graceful shutdown (api-decisions 503 row): once closing starts, a new request gets 503 `unavailable` as a
// problem body with Retry-After, never a bare framework reply; the close itself completes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createServices } from '../../src/services.js';
import { openTestStore, seedWorkspace, TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';

test('a request arriving while the app closes gets 503 unavailable with Retry-After', async () => {
  const handle = await openTestStore();
  const { store } = handle;
  const services = createServices({ store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
  const app = await buildApp({ services });
  // Hold the close open (as in-flight requests would) until the test has made its request.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let closingStarted!: () => void;
  const started = new Promise<void>((resolve) => {
    closingStarted = resolve;
  });
  app.addHook('preClose', async () => {
    closingStarted();
    await gate;
  });
  await app.ready();
  try {
    const ws = await seedWorkspace(services);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const ping = () => fetch(`${url}/v1/ping`, { headers: { authorization: `Bearer ${ws.key}` } });
    assert.equal((await ping()).status, 200);

    const closed = app.close();
    await started;
    const refused = await ping();
    release();
    await closed;

    assert.equal(refused.status, 503);
    assert.match(String(refused.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal(refused.headers.get('retry-after'), '1');
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.code, 'unavailable');
    assert.equal(body.status, 503);
    assert.equal(body.request_id, refused.headers.get('x-request-id'));
  } finally {
    release();
    await handle.close();
  }
});
