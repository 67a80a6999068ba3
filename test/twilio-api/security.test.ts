// The Twilio-compatible API keeps the service's secrets: the Basic credentials (which carry an API key) and the
// codes reach no log line even at trace level, and the facade stays out of the public /v1 OpenAPI document.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { buildApp, LOG_REDACT_PATHS } from '../../src/app.js';
import { createServices } from '../../src/services.js';
import { codeFor, openTestStore, seedWorkspace, TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';
import { ANY_ACCOUNT_SID, twilioClient } from '../helpers/twilio.js';

test('logs at trace level hold no API key, no Basic credentials and no code of a Twilio-API flow', async () => {
  const handle = await openTestStore();
  const services = createServices({ store: handle.store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
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
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const ws = await seedWorkspace(services);
    const client = twilioClient(`http://127.0.0.1:${port}`, ws.key);
    const verify = client.verify.v2.services(ws.workspaceId);
    const to = '+61412349301';
    const sent = await verify.verifications.create({ to, channel: 'sms' });
    const code = await codeFor(services, to);
    const checked = await verify.verificationChecks.create({ verificationSid: sent.sid, code });
    assert.equal(checked.status, 'approved');
    // A refused one too: bad credentials are logged as a 401, without them.
    await twilioClient(`http://127.0.0.1:${port}`, 'pv_live_not-a-key')
      .verify.v2.services(ws.workspaceId)
      .fetch()
      .catch(() => undefined);

    assert.ok(logs.includes('request completed'), 'requests are logged');
    const credentials = Buffer.from(`${ANY_ACCOUNT_SID}:${ws.key}`).toString('base64');
    assert.equal(logs.includes(ws.key), false, 'the API key is not logged');
    assert.equal(logs.includes(ws.key.slice(8, 30)), false, 'no part of the API key is logged');
    assert.equal(logs.includes(credentials.slice(0, 40)), false, 'the Basic credentials are not logged');
    assert.equal(logs.toLowerCase().includes('basic '), false, 'no Authorization header is logged');
    assert.equal(logs.includes('not-a-key'), false, 'refused credentials are not logged');
    assert.equal(new RegExp(`(?<!\\d)${code}(?!\\d)`).test(logs), false, 'the code is not logged');
  } finally {
    await app.close();
    await handle.close();
  }
});

test('the public OpenAPI document (/openapi.json) holds no /twilio route', async () => {
  const handle = await openTestStore();
  const services = createServices({ store: handle.store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
  const app = await buildApp({ services });
  try {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    assert.ok(Object.keys(doc.paths).some((p) => p.startsWith('/v1/')));
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.includes('twilio')),
      [],
    );
  } finally {
    await app.close();
    await handle.close();
  }
});
