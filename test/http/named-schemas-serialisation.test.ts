// Issue 15: the routes refer to named schemas ($ref), and their answers are still written by the serialisers
// Fastify compiles from those schemas at start-up (fast-json-stringify), never by JSON.stringify per call: for
// send, check, read, cancel and ping, and for their error answers (application/problem+json).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import {
  client,
  codeFor,
  json,
  openTestStore,
  seedWorkspace,
  TEST_PUBLIC_URL,
  TEST_SECRET,
  type TestStoreHandle,
} from '../helpers/app.js';

interface Written {
  url: string;
  status: number;
  /** The route's compiled serialiser for the status (and the answer's media type, for problems). */
  serialise: ((value: Record<string, unknown>) => string) | undefined;
  payload: string;
}

describe('answers by named schemas are written by compiled serialisers', () => {
  let handle: TestStoreHandle;
  let services: Services;
  let app: FastifyInstance;
  const written: Written[] = [];

  before(async () => {
    handle = await openTestStore();
    services = createServices({
      store: handle.store,
      secret: TEST_SECRET,
      publicUrl: TEST_PUBLIC_URL,
      delivery: { waitMs: 60_000 },
    });
    app = await buildApp({ services });
    app.addHook('onSend', async (request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '').split(';')[0] ?? '';
      // By status, or (a response documented by media type: problems, cancel's answer) by status and media type.
      const byStatus: unknown = reply.getSerializationFunction(String(reply.statusCode));
      const serialise =
        typeof byStatus === 'function'
          ? (byStatus as (value: Record<string, unknown>) => string)
          : reply.getSerializationFunction(String(reply.statusCode), type);
      written.push({ url: request.url, status: reply.statusCode, serialise, payload: String(payload) });
      return payload;
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await services.dispatcher.drain();
    await services.webhookDelivery.drain();
    await services.carrierRuntime.close();
    await handle.close();
  });

  test('send, check, read, cancel, ping and their problems', async () => {
    const { key } = await seedWorkspace(services);
    const api = client(app, key);
    const sent = await api.send({ phone: '+61412345601', channel: 'sms' });
    assert.equal(sent.statusCode, 201, sent.body);
    const id = String(json(sent).id);
    assert.equal((await api.check({ verification_id: id, code: '000000' })).statusCode, 200);
    const code = await codeFor(services, '+61412345601');
    assert.equal((await api.check({ verification_id: id, code })).statusCode, 200);
    assert.equal((await api.get(id)).statusCode, 200);
    assert.equal((await api.cancel(id)).statusCode, 200);
    assert.equal((await api.ping()).statusCode, 200);
    assert.equal((await api.send({ phone: '+6149157' })).statusCode, 400);
    assert.equal(
      (await api.check({ verification_id: 'ver_0VbvA1b2C3d4E5f6G7h8I9j0', code: '1' })).statusCode,
      404,
    );
    assert.equal((await app.inject({ method: 'GET', url: '/v1/ping' })).statusCode, 401);

    assert.deepEqual(
      written.map((w) => `${w.status} ${w.url.replace(id, '{id}')}`),
      [
        '201 /v1/otp/send',
        '200 /v1/otp/check',
        '200 /v1/otp/check',
        '200 /v1/otp/{id}',
        '200 /v1/otp/{id}/cancel',
        '200 /v1/ping',
        '400 /v1/otp/send',
        '404 /v1/otp/check',
        '401 /v1/ping',
      ],
    );
    for (const w of written) {
      assert.equal(typeof w.serialise, 'function', `${w.status} ${w.url}: a compiled serialiser`);
      // What was sent is what the compiled function writes.
      assert.equal(w.serialise?.(JSON.parse(w.payload)), w.payload, `${w.status} ${w.url}`);
    }
  });
});
