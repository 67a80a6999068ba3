// Spec section 4, GET /v1/otp/{id} and POST /v1/otp/{id}/cancel; api-decisions.md "Wire format" (200, full
// Verification) and the 404 not_found row of the error table.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem, Verification } from '../helpers/api-types.js';
import { type Client, client, codeFor, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { acmeApp, verificationApi } from '../helpers/verification.js';

const VERIFICATION_FIELDS = [
  'attempts',
  'channel',
  'created_at',
  'delivery',
  'expires_at',
  'id',
  'max_attempts',
  'metadata',
  'mode',
  'phone',
  'status',
  'verified_at',
];
const DELIVERY_FIELDS = ['channel', 'error_code', 'error_message', 'from_number', 'ok', 'provider_id'];

function assertNotFound(res: LightMyRequestResponse): Problem {
  assert.equal(res.statusCode, 404, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const problem = json<Problem>(res);
  assert.equal(problem.code, 'not_found');
  assert.equal(problem.status, 404);
  return problem;
}

function assertFullVerification(v: Verification): void {
  assert.deepEqual(Object.keys(v).sort(), VERIFICATION_FIELDS);
  assert.deepEqual(Object.keys(v.delivery).sort(), DELIVERY_FIELDS);
}

describe('spec §4 GET /v1/otp/{id} and POST /v1/otp/{id}/cancel', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;

  const { send, read, cancel } = verificationApi(() => ({ api, services: t.services }));

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  describe('GET /v1/otp/{id}: 200 with the full Verification (spec §2 field table)', () => {
    test('a pending verification reads back exactly as send returned it', async () => {
      const sent = await send('+61412347001', { metadata: { order: 7 }, code_length: 8, max_attempts: 7 });
      clock.advance(1_000);
      const res = await api.get(sent.id);
      assert.equal(res.statusCode, 200);
      const v = json<Verification>(res);
      assertFullVerification(v);
      assert.deepEqual(v, sent);
      assert.equal(v.status, 'pending');
      assert.deepEqual(v.metadata, { order: 7 });
      assert.equal(v.max_attempts, 7);
      assert.equal(res.body.includes(await codeFor(t.services, '+61412347001')), false);
    });

    test('reading has no side effects: two reads are identical', async () => {
      const sent = await send('+61412347002');
      assert.deepEqual(await read(sent.id), await read(sent.id));
    });

    test('a verified verification reads with verified_at and its attempts', async () => {
      const sent = await send('+61412347003');
      clock.advance(2_000);
      await api.check({ verification_id: sent.id, code: await codeFor(t.services, '+61412347003') });
      const v = await read(sent.id);
      assertFullVerification(v);
      assert.equal(v.status, 'verified');
      assert.equal(v.verified_at, new Date(clock.now()).toISOString());
      assert.equal(v.attempts, 1);
    });

    test('an undelivered verification reads with delivery carrying the reason', async () => {
      const sent = await send('+61412340999');
      const v = await read(sent.id);
      assertFullVerification(v);
      assert.equal(v.status, 'undelivered');
      assert.equal(v.delivery.ok, false);
      assert.equal(v.delivery.error_code, 'destination_rejected');
      assert.equal(typeof v.delivery.error_message, 'string');
      assert.ok((v.delivery.error_message ?? '').length > 0);
    });

    test('an unknown id: 404 not_found', async () => {
      assertNotFound(await api.get('ver_000000000000000000000000'));
      assertNotFound(await api.get('nonsense'));
    });

    test("another workspace's id: 404 not_found, the same answer as an unknown id", async () => {
      const sent = await send('+61412347004');
      const other = client(t.app, (await seedWorkspace(t.services, { name: 'Other' })).key);
      const foreign = assertNotFound(await other.get(sent.id));
      const unknownId = 'ver_000000000000000000000000';
      const unknown = assertNotFound(await other.get(unknownId));
      const strip = (p: Problem, id: string) => ({
        ...p,
        request_id: '',
        detail: p.detail.replace(id, '<id>'),
      });
      assert.deepEqual(strip(foreign, sent.id), strip(unknown, unknownId));
    });
  });

  describe('POST /v1/otp/{id}/cancel: 200 with the full Verification', () => {
    test('cancel a pending verification: status canceled, and its code no longer verifies', async () => {
      const sent = await send('+61412347005');
      const code = await codeFor(t.services, '+61412347005');
      const res = await api.cancel(sent.id);
      assert.equal(res.statusCode, 200);
      const v = json<Verification>(res);
      assertFullVerification(v);
      assert.equal(v.status, 'canceled');
      assert.equal(v.id, sent.id);
      assert.equal(v.verified_at, null);
      assert.deepEqual(await read(sent.id), v);
      const check = json(await api.check({ verification_id: sent.id, code }));
      assert.equal(check.verified, false);
      assert.equal(check.status, 'canceled');
    });

    test('idempotent: cancelling twice returns the same canceled verification', async () => {
      const sent = await send('+61412347006');
      const first = await cancel(sent.id);
      clock.advance(1_000);
      const second = await cancel(sent.id);
      assert.deepEqual(second, first);
      assert.equal(second.status, 'canceled');
    });

    test('cancelling a verified verification returns it unchanged', async () => {
      const sent = await send('+61412347007');
      await api.check({ verification_id: sent.id, code: await codeFor(t.services, '+61412347007') });
      const before = await read(sent.id);
      clock.advance(1_000);
      assert.deepEqual(await cancel(sent.id), before);
      assert.deepEqual(await read(sent.id), before);
      assert.equal(before.status, 'verified');
    });

    test('cancelling a failed verification returns it unchanged', async () => {
      const sent = await send('+61412347008', { max_attempts: 1 });
      await api.check({ verification_id: sent.id, code: '0' });
      const before = await read(sent.id);
      assert.equal(before.status, 'failed');
      assert.deepEqual(await cancel(sent.id), before);
      assert.deepEqual(await read(sent.id), before);
    });

    test('cancelling an undelivered verification returns it unchanged', async () => {
      // A second workspace, so the …0999 number is under its send limit whatever ran before.
      const own = client(t.app, (await seedWorkspace(t.services, { name: 'Rejects' })).key);
      const sent = json<Verification>(await own.send({ phone: '+61412340999' }));
      assert.equal(sent.status, 'undelivered');
      const res = await own.cancel(sent.id);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), sent);
    });

    test('cancelling an expired verification returns it expired, not canceled', async () => {
      const sent = await send('+61412347009', { ttl_seconds: 60 });
      clock.advance(60_000);
      const v = await cancel(sent.id);
      assert.equal(v.status, 'expired');
      assert.equal((await read(sent.id)).status, 'expired');
    });

    test('an unknown id: 404 not_found', async () => {
      assertNotFound(await api.cancel('ver_000000000000000000000000'));
    });

    test("another workspace's id: 404 not_found, and the verification stays pending", async () => {
      const sent = await send('+61412347010');
      const other = client(t.app, (await seedWorkspace(t.services, { name: 'Other' })).key);
      assertNotFound(await other.cancel(sent.id));
      assert.equal((await read(sent.id)).status, 'pending');
    });
  });
});
