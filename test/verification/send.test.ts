// Spec section 4, POST /v1/otp/send: fields, defaults, bounds and rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client, codeFor, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';

describe('POST /v1/otp/send', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    api = client(t.app, ws.key);
  });
  after(() => t.close());

  test('a valid request answers 201 with a pending verification and every documented default', async () => {
    const res = await api.send({ phone: '+61412345001' });
    assert.equal(res.statusCode, 201);
    const v = json(res);
    assert.match(String(v.id), /^ver_[0-9A-Za-z]{24}$/);
    assert.equal(v.status, 'pending');
    assert.equal(v.channel, 'voice');
    assert.equal(v.phone, '+61412345001');
    assert.equal(v.attempts, 0);
    assert.equal(v.max_attempts, 5);
    assert.equal(v.verified_at, null);
    assert.deepEqual(v.metadata, {});
    const created = Date.parse(String(v.created_at));
    assert.equal(Date.parse(String(v.expires_at)) - created, 300_000);
    assert.match(String(v.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(v.delivery, {
      ok: true,
      channel: 'voice',
      provider_id: (v.delivery as { provider_id: string }).provider_id,
      from_number: '+61491570156',
      error_code: null,
      error_message: null,
    });
    assert.equal('code' in v, false);
    assert.equal(res.headers['x-request-id']?.toString().startsWith('req_'), true);
    assert.equal((await codeFor(t.services, '+61412345001')).length, 6);
  });

  test('a national number takes the country of the workspace number by default', async () => {
    const res = await api.send({ phone: '0412 345 002' });
    assert.equal(res.statusCode, 201);
    assert.equal(json(res).phone, '+61412345002');
  });
});
