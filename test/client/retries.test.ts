// Retries, backoff and timeouts, proved with a local HTTP stub (alone, or in front of the real service): which
// failures are retried for which call, that Retry-After is honoured and bounded, that a send's retries carry ONE
// Idempotency-Key so the service sends once, and that a check is never repeated once it may have acted.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import {
  PhoneVerify,
  PhoneVerifyApiError,
  PhoneVerifyConnectionError,
  type PhoneVerifyError,
  PhoneVerifyTimeoutError,
} from '@phone-verify/client';
import { delayBefore } from '../../clients/node/src/retry.js';
import { seedWorkspace } from '../helpers/app.js';
import {
  closedPort,
  fastClient,
  type ListeningApp,
  listeningApp,
  problem,
  rejection,
  type Stub,
  startStub,
} from './helpers.js';

const PING = { ok: true, workspace_id: 'ws_x', key_name: 'k', scopes: ['otp'] };
const KEY = 'pv_live_stub';

describe('retries against a stub', () => {
  let stub: Stub;
  afterEach(() => stub.close());

  test('503 then 200: ping is retried after a backoff and succeeds', async () => {
    stub = await startStub();
    stub.decide = (_r, i) =>
      i < 2 ? { answer: 503, body: problem(503, 'unavailable') } : { answer: 200, body: PING };
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetries: 2 });
    assert.deepEqual(await pv.ping(), PING);
    assert.equal(stub.seen.length, 3);
    assert.equal(stub.seen[0]?.headers.authorization, `Bearer ${KEY}`);
  });

  test('backoff is exponential with full jitter: each wait below base * 2^retry', async () => {
    stub = await startStub();
    stub.decide = () => ({ answer: 503, body: problem(503, 'unavailable') });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetries: 4, retryBaseDelayMs: 40 });
    const error = await rejection(() => pv.ping(), PhoneVerifyApiError);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'unavailable');
    assert.equal(stub.seen.length, 5, 'the first attempt and maxRetries retries, then the last error');
    // The waits themselves from the policy, with the jitter pinned at both ends: no clock is read, so a busy
    // machine cannot fail this (the Retry-After tests below show that a computed wait is really waited).
    const policy = { maxRetries: 4, baseDelayMs: 40, maxDelayMs: 1_000, random: () => 0 };
    assert.equal(error.retryAfter, undefined, 'no Retry-After: the backoff decides');
    const noHint: PhoneVerifyError = error;
    for (let retry = 0; retry < 6; retry++) {
      assert.equal(delayBefore(retry, noHint, policy), 0, 'full jitter reaches down to no wait');
      const top = delayBefore(retry, noHint, { ...policy, random: () => 0.999_999 });
      const ceiling = Math.min(policy.maxDelayMs, 40 * 2 ** retry);
      assert.equal(top, ceiling - 1, `retry ${retry}: just below ${ceiling} ms`);
    }
  });

  test('429 with Retry-After: 1: the retry waits that second', async () => {
    stub = await startStub();
    stub.decide = (_r, i) =>
      i === 0
        ? { answer: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited') }
        : { answer: 200, body: PING };
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY });
    await pv.ping();
    const gap = (stub.seen[1]?.at ?? 0) - (stub.seen[0]?.at ?? 0);
    assert.ok(gap >= 990, `waited ${gap} ms`);
  });

  test('Retry-After over maxRetryDelayMs: thrown at once with retryAfter (from the header)', async () => {
    stub = await startStub();
    stub.decide = () => ({
      answer: 429,
      headers: { 'retry-after': '120' },
      body: problem(429, 'rate_limited'),
    });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetryDelayMs: 5_000 });
    const error = await rejection(() => pv.get('ver_x'), PhoneVerifyApiError);
    assert.equal(error.retryAfter, 120);
    assert.equal(stub.seen.length, 1);
  });

  test('4xx other than 429 (and 409 in use) are never retried', async () => {
    stub = await startStub();
    stub.decide = () => ({ answer: 404, body: problem(404, 'not_found') });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY });
    await rejection(() => pv.get('ver_x'), PhoneVerifyApiError);
    assert.equal(stub.seen.length, 1);
  });

  test('an error answer that is not a problem (a proxy page): unexpected_response with its status', async () => {
    stub = await startStub();
    stub.decide = () => ({ answer: 502, headers: { 'content-type': 'text/html' } });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetries: 0 });
    const error = await rejection(() => pv.ping(), PhoneVerifyApiError);
    assert.equal(error.status, 502);
    assert.equal(error.code, 'unexpected_response');
  });

  test('check: a 503 is never retried (the attempt may have been counted); a 429 is (it spends none)', async () => {
    stub = await startStub();
    stub.decide = () => ({ answer: 503, body: problem(503, 'unavailable') });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetries: 3 });
    await rejection(() => pv.check({ verification_id: 'ver_x', code: '123456' }), PhoneVerifyApiError);
    assert.equal(stub.seen.length, 1);

    stub.seen.length = 0;
    stub.decide = (_r, i) =>
      i === 0
        ? {
            answer: 429,
            headers: { 'retry-after': '0' },
            body: problem(429, 'rate_limited', { retry_after: 0 }),
          }
        : { answer: 200, body: { id: 'ver_x', status: 'verified', verified: true } };
    const result = await pv.check({ verification_id: 'ver_x', code: '123456' });
    assert.equal(result.verified, true);
    assert.equal(stub.seen.length, 2);
  });

  test('check: a connection broken after the request was sent is not retried (requestSent)', async () => {
    stub = await startStub();
    stub.decide = () => ({ destroy: true });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetries: 3 });
    const error = await rejection(
      () => pv.check({ verification_id: 'ver_x', code: '123456' }),
      PhoneVerifyConnectionError,
    );
    assert.equal(error.code, 'connection_error');
    assert.equal(error.requestSent, true);
    assert.equal(stub.seen.length, 1);
    // The same failure on a safe call is retried.
    stub.seen.length = 0;
    await rejection(() => pv.get('ver_x'), PhoneVerifyConnectionError);
    assert.equal(stub.seen.length, 4);
  });

  test('timeouts: a typed error after timeoutMs; a safe call retries it, check does not', async () => {
    stub = await startStub();
    stub.decide = () => ({ hang: true });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, timeoutMs: 200, maxRetries: 1 });
    const started = Date.now();
    const error = await rejection(() => pv.get('ver_x'), PhoneVerifyTimeoutError);
    const took = Date.now() - started;
    assert.equal(error.code, 'timeout');
    assert.equal(error.timeoutMs, 200);
    assert.equal(stub.seen.length, 2);
    // Timers never fire early: two attempts of 200 ms take at least 400 (no upper bound: a busy machine is slow).
    assert.ok(took >= 400, `took ${took} ms`);

    stub.seen.length = 0;
    await rejection(
      () => pv.check({ verification_id: 'ver_x', code: '1' }, { timeoutMs: 100 }),
      PhoneVerifyTimeoutError,
    );
    assert.equal(stub.seen.length, 1, 'a timed-out check may have acted: not repeated');
  });

  test("the caller's AbortSignal ends the call, its waits included, with the signal's reason", async () => {
    stub = await startStub();
    stub.decide = () => ({
      answer: 503,
      headers: { 'retry-after': '60' },
      body: problem(503, 'unavailable'),
    });
    const pv = fastClient({ baseUrl: stub.url, apiKey: KEY, maxRetries: 3, maxRetryDelayMs: 120_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 200);
    const started = Date.now();
    await assert.rejects(() => pv.ping({ signal: controller.signal }), /caller gave up/);
    // The wait it cut short was a minute: far above what even a busy machine takes to abort.
    assert.ok(Date.now() - started < 30_000);
    assert.equal(stub.seen.length, 1);
  });
});

test('connection refused: retried for every call, check included (nothing reached a server)', async () => {
  const port = await closedPort();
  let calls = 0;
  const counting: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  const pv = fastClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, maxRetries: 2, fetch: counting });
  const error = await rejection(
    () => pv.check({ verification_id: 'ver_x', code: '1' }),
    PhoneVerifyConnectionError,
  );
  assert.equal(error.requestSent, false);
  assert.match(error.message, /ECONNREFUSED/);
  assert.equal(calls, 3);
});

describe('retried sends against the real service: one Idempotency-Key, one send', () => {
  let t: ListeningApp;
  let stub: Stub;
  let key: string;

  before(async () => {
    t = await listeningApp();
    key = (await seedWorkspace(t.services, { name: 'Retry Co' })).key;
  });
  after(() => t.close());
  afterEach(() => stub.close());

  async function verificationsTo(phone: string) {
    return t.store.db.selectFrom('verifications').select('id').where('phone', '=', phone).execute();
  }

  for (const lost of ['a 503 in place of the answer', 'a connection dropped before the answer'] as const) {
    test(`the first answer is lost (${lost}): the retry is replayed, the code sent once`, async () => {
      stub = await startStub(t.url);
      stub.decide = (_r, i) =>
        i === 0
          ? lost.startsWith('a 503')
            ? { forward: true, replaceWith: 503 }
            : { forward: true, destroy: true }
          : { forward: true };
      const phone = lost.startsWith('a 503') ? '+61412346001' : '+61412346002';
      const pv = new PhoneVerify({ baseUrl: stub.url, apiKey: key, retryBaseDelayMs: 20 });
      const sent = await pv.send({ phone, channel: 'sms' });
      assert.equal(stub.seen.length, 2);
      const keys = stub.seen.map((s) => s.headers['idempotency-key']);
      assert.match(String(keys[0]), /^[0-9a-f-]{36}$/);
      assert.equal(keys[1], keys[0], 'one key across the call');
      assert.equal(stub.upstreamAnswers[0]?.status, 201);
      assert.equal(stub.upstreamAnswers[1]?.headers.get('idempotent-replayed'), 'true');
      assert.equal(
        stub.upstreamAnswers[1]?.body,
        stub.upstreamAnswers[0]?.body,
        'the first answer, byte for byte',
      );
      assert.deepEqual(
        await verificationsTo(phone),
        [{ id: sent.id }],
        'one verification: the service sent once',
      );
    });
  }

  test('each call has its own key: two sends are two sends', async () => {
    stub = await startStub(t.url);
    const pv = new PhoneVerify({ baseUrl: stub.url, apiKey: key });
    await pv.send({ phone: '+61412346003', channel: 'sms' });
    await pv.send({ phone: '+61412346003', channel: 'sms' });
    assert.notEqual(stub.seen[0]?.headers['idempotency-key'], stub.seen[1]?.headers['idempotency-key']);
    assert.equal((await verificationsTo('+61412346003')).length, 2);
  });

  test('409 idempotency_key_in_use (the first still running) is retried after its Retry-After', async () => {
    stub = await startStub(t.url);
    stub.decide = (_r, i) =>
      i === 0
        ? {
            answer: 409,
            headers: { 'retry-after': '1' },
            body: problem(409, 'idempotency_key_in_use', { retry_after: 1 }),
          }
        : { forward: true };
    const pv = new PhoneVerify({ baseUrl: stub.url, apiKey: key });
    const sent = await pv.send({ phone: '+61412346004', channel: 'sms' });
    assert.equal(stub.seen.length, 2);
    assert.equal(stub.seen[1]?.headers['idempotency-key'], stub.seen[0]?.headers['idempotency-key']);
    assert.deepEqual(await verificationsTo('+61412346004'), [{ id: sent.id }]);
  });

  test('maxRetries: 0 makes one attempt', async () => {
    stub = await startStub(t.url);
    stub.decide = () => ({ answer: 503, body: problem(503, 'unavailable') });
    const pv = new PhoneVerify({ baseUrl: stub.url, apiKey: key, maxRetries: 0 });
    await rejection(() => pv.send({ phone: '+61412346005' }), PhoneVerifyApiError);
    assert.equal(stub.seen.length, 1);
  });
});
