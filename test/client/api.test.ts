// @phone-verify/client against the real service (both stores): every method, and every error the service answers
// as a typed PhoneVerifyApiError carrying its status, code, request id, Retry-After, detail and field errors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type CheckResult,
  PhoneVerify,
  PhoneVerifyApiError,
  PhoneVerifyError,
  type Verification,
} from '@phone-verify/client';
import { OPERATOR } from '../../src/audit/actor.js';
import { codeFor, seedWorkspace } from '../helpers/app.js';
import { wrongCode } from '../helpers/verification.js';
import { type ListeningApp, listeningApp, rejection } from './helpers.js';

describe('the Node client against the service', () => {
  let t: ListeningApp;
  let pv: PhoneVerify;
  let workspaceId: string;

  before(async () => {
    t = await listeningApp();
    const ws = await seedWorkspace(t.services, { name: 'Client Co' });
    workspaceId = ws.workspaceId;
    pv = new PhoneVerify({ baseUrl: t.url, apiKey: ws.key });
  });
  after(() => t.close());

  test('ping: the key works, its workspace and scopes', async () => {
    const ping = await pv.ping();
    assert.deepEqual(ping, { ok: true, workspace_id: workspaceId, key_name: 'test key', scopes: ['otp'] });
  });

  test('send, get, check (wrong then right): the whole flow, typed', async () => {
    const sent: Verification = await pv.send({
      phone: '+61 412 345 601',
      channel: 'sms',
      metadata: { user: 'u_1' },
    });
    assert.match(sent.id, /^ver_/);
    assert.equal(sent.status, 'pending');
    assert.equal(sent.phone, '+61412345601');
    assert.equal(sent.channel, 'sms');
    assert.deepEqual(sent.metadata, { user: 'u_1' });
    assert.equal(sent.delivery.ok, true);
    assert.deepEqual(await pv.get(sent.id), sent);

    const code = await codeFor(t.services, '+61412345601');
    const wrong: CheckResult = await pv.check({ verification_id: sent.id, code: wrongCode(code) });
    assert.deepEqual(wrong, {
      id: sent.id,
      status: 'pending',
      verified: false,
      attempts: 1,
      attempts_remaining: 4,
    });
    const right = await pv.check({ verification_id: sent.id, code });
    assert.equal(right.verified, true);
    assert.equal(right.status, 'verified');
    assert.equal((await pv.get(sent.id)).status, 'verified');
  });

  test('check by phone', async () => {
    await pv.send({ phone: '+61412345602', channel: 'voice' });
    const code = await codeFor(t.services, '+61412345602');
    const result = await pv.check({ phone: '+61412345602', code });
    assert.equal(result.verified, true);
  });

  test('cancel: a pending verification is canceled; again, it is returned unchanged', async () => {
    const sent = await pv.send({ phone: '+61412345603', channel: 'sms' });
    const canceled = await pv.cancel(sent.id);
    assert.equal(canceled.status, 'canceled');
    assert.deepEqual(await pv.cancel(sent.id), canceled);
  });

  test('send with an idempotency key of the caller: the same key and body answer the first send again', async () => {
    const key = `signup-${Date.now()}`;
    const first = await pv.send({ phone: '+61412345604', channel: 'sms' }, { idempotencyKey: key });
    const again = await pv.send({ phone: '+61412345604', channel: 'sms' }, { idempotencyKey: key });
    assert.deepEqual(again, first);
    const rows = await t.store.db
      .selectFrom('verifications')
      .select('id')
      .where('phone', '=', '+61412345604')
      .execute();
    assert.equal(rows.length, 1, 'one verification: the second call sent nothing');
    // Another body under the same key: 422 idempotency_key_reused.
    const reused = await rejection(
      () => pv.send({ phone: '+61412345605', channel: 'sms' }, { idempotencyKey: key }),
      PhoneVerifyApiError,
    );
    assert.equal(reused.status, 422);
    assert.equal(reused.code, 'idempotency_key_reused');
  });

  test('401: a malformed key and an unknown key, each with its code and request id', async () => {
    const malformed = await rejection(
      () => new PhoneVerify({ baseUrl: t.url, apiKey: 'pv_live_nope' }).ping(),
      PhoneVerifyApiError,
    );
    assert.equal(malformed.status, 401);
    assert.equal(malformed.code, 'malformed_api_key');
    assert.match(malformed.requestId ?? '', /^req_/);
    assert.ok(malformed instanceof PhoneVerifyError);
    assert.equal(malformed.problem?.status, 401);

    const other = await seedWorkspace(t.services, { name: 'Gone Co' });
    await t.services.keys.revokeKey(other.workspaceId, other.keyId, OPERATOR);
    const revoked = await rejection(
      () => new PhoneVerify({ baseUrl: t.url, apiKey: other.key }).ping(),
      PhoneVerifyApiError,
    );
    assert.equal(revoked.status, 401);
    assert.equal(revoked.code, 'invalid_api_key');
  });

  test('400 invalid_request: every bad field in errors[], with the detail', async () => {
    const error = await rejection(
      () =>
        pv.send({
          phone: '+61412345606',
          code_length: 99,
          ttl_seconds: 1,
          // A field the API does not know, sent past the types as a JavaScript caller could.
          ...({ colour: 'red' } as object),
        }),
      PhoneVerifyApiError,
    );
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_request');
    assert.ok(error.detail && error.detail.length > 0);
    const fields = error.errors.map((e) => e.field).sort();
    assert.deepEqual(fields, ['code_length', 'colour', 'ttl_seconds']);
    for (const e of error.errors) assert.ok(e.message.length > 0);
  });

  test('400 invalid_phone and NUL in a field: problems, never a 500', async () => {
    const invalid = await rejection(() => pv.send({ phone: '+61 1' }), PhoneVerifyApiError);
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, 'invalid_phone');
    const nul = await rejection(() => pv.send({ phone: '+614\u0000' }), PhoneVerifyApiError);
    assert.equal(nul.status, 400);
    assert.equal(nul.code, 'invalid_request');
    assert.deepEqual(
      nul.errors.map((e) => e.field),
      ['phone'],
    );
    const surrogate = await rejection(
      () => pv.check({ verification_id: 'ver_x', code: '\ud800' }),
      PhoneVerifyApiError,
    );
    assert.equal(surrogate.status, 400);
  });

  test('bad types past the types, and a body over 16 KiB: typed problems, never a 500', async () => {
    const typed = await rejection(
      () => pv.send({ phone: 61412345610 as unknown as string, channel: 'fax' as 'sms' }),
      PhoneVerifyApiError,
    );
    assert.equal(typed.status, 400);
    assert.deepEqual(typed.errors.map((e) => e.field).sort(), ['channel', 'phone']);
    const huge = await rejection(
      () => pv.send({ phone: '+61412345610', metadata: { blob: 'x'.repeat(20_000) } }),
      PhoneVerifyApiError,
    );
    assert.equal(huge.status, 413);
    assert.equal(huge.code, 'payload_too_large');
    const long = await rejection(
      () => pv.check({ phone: '+61412345610', code: '1'.repeat(65) }),
      PhoneVerifyApiError,
    );
    assert.equal(long.status, 400);
    assert.deepEqual(
      long.errors.map((e) => e.field),
      ['code'],
    );
  });

  test('404 not_found: an unknown id, an id of odd text (escaped into the path), a check of one', async () => {
    for (const id of ['ver_0000000000000000000000', '../ping', 'ver_%00', 'ver_ü/..', 'x'.repeat(300)]) {
      const error = await rejection(() => pv.get(id), PhoneVerifyApiError);
      assert.equal(error.status, 404, id);
      assert.equal(error.code, 'not_found', id);
      const canceled = await rejection(() => pv.cancel(id), PhoneVerifyApiError);
      assert.equal(canceled.status, 404, id);
    }
    const check = await rejection(
      () => pv.check({ verification_id: 'ver_0000000000000000000000', code: '123456' }),
      PhoneVerifyApiError,
    );
    assert.equal(check.code, 'not_found');
    const byPhone = await rejection(
      () => pv.check({ phone: '+61412345699', code: '123456' }),
      PhoneVerifyApiError,
    );
    assert.equal(byPhone.status, 404);
    assert.equal(byPhone.code, 'no_verification');
  });

  test('409 channel_unavailable with its reason', async () => {
    const ws = await seedWorkspace(t.services, {
      name: 'Landline Co',
      numbers: [{ number: '+61298765432' }],
    });
    const landline = new PhoneVerify({ baseUrl: t.url, apiKey: ws.key });
    const error = await rejection(
      () => landline.send({ phone: '+61412345607', channel: 'sms' }),
      PhoneVerifyApiError,
    );
    assert.equal(error.status, 409);
    assert.equal(error.code, 'channel_unavailable');
    assert.equal(error.reason, 'no_mobile_number');
  });

  test('429 rate_limited: retryAfter from the problem, equal to Retry-After; a long wait is not retried', async () => {
    const phone = '+61412345608';
    for (let i = 0; i < 5; i++) await pv.send({ phone, channel: 'sms' });
    const started = Date.now();
    const error = await rejection(() => pv.send({ phone, channel: 'sms' }), PhoneVerifyApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.ok(error.retryAfter !== undefined && error.retryAfter > 60, `retryAfter ${error.retryAfter}`);
    assert.equal(error.problem?.retry_after, error.retryAfter);
    assert.ok(
      // Waited for, it would take over a minute; the bound is far from it, so a busy machine cannot fail it.
      Date.now() - started < 30_000,
      'a Retry-After past maxRetryDelayMs is thrown at once, not waited for',
    );
    const rows = await t.store.db
      .selectFrom('verifications')
      .select('id')
      .where('phone', '=', phone)
      .execute();
    assert.equal(rows.length, 5);
  });

  test('a wrong code to the last attempt: check answers failed, never an error', async () => {
    const sent = await pv.send({ phone: '+61412345609', channel: 'sms', max_attempts: 2 });
    const code = await codeFor(t.services, '+61412345609');
    await pv.check({ verification_id: sent.id, code: wrongCode(code) });
    const last = await pv.check({ verification_id: sent.id, code: wrongCode(code) });
    assert.deepEqual(last, {
      id: sent.id,
      status: 'failed',
      verified: false,
      attempts: 2,
      attempts_remaining: 0,
    });
    const late = await pv.check({ verification_id: sent.id, code });
    assert.equal(late.verified, false, 'the right code after the attempts are spent does not verify');
  });

  test('concurrent sends of one call each: every one answered, each its own verification', async () => {
    const phones = Array.from({ length: 8 }, (_, i) => `+6141234571${i}`);
    const sent = await Promise.all(phones.map((phone) => pv.send({ phone, channel: 'sms' })));
    assert.equal(new Set(sent.map((v) => v.id)).size, phones.length);
  });

  test('options are checked when the client is made', () => {
    assert.throws(() => new PhoneVerify({ baseUrl: t.url, apiKey: '' }), TypeError);
    assert.throws(() => new PhoneVerify({ baseUrl: 'not a url', apiKey: 'k' }), TypeError);
    assert.throws(() => new PhoneVerify({ baseUrl: 'ftp://x', apiKey: 'k' }), TypeError);
    assert.throws(() => new PhoneVerify({ baseUrl: t.url, apiKey: 'k', maxRetries: -1 }), TypeError);
    assert.throws(() => new PhoneVerify({ baseUrl: t.url, apiKey: 'k', timeoutMs: 1.5 }), TypeError);
  });

  test('a base URL with a trailing slash works the same', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Slash Co' });
    const slashed = new PhoneVerify({ baseUrl: `${t.url}/`, apiKey: ws.key });
    assert.equal((await slashed.ping()).ok, true);
  });
});
