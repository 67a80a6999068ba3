// Spec section 5 (Authentication) table, and the api-decisions error rows for 401 and 403:
//   401 missing_api_key / malformed_api_key: no key header; a key not in the key shape
//   401 invalid_api_key: unknown, revoked or expired key: byte-identical body for all three, request_id aside
//   403 insufficient_scope: the key lacks the scope; detail names it
import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import { generateKey, KEY_PREFIX } from '../../src/keys/key-format.js';
import type { Problem } from '../helpers/api-types.js';
import { client, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

/** The five /v1 endpoints, each with a request that would succeed with a valid otp key. */
const ENDPOINTS: { name: string; method: 'GET' | 'POST'; url: string; body?: unknown }[] = [
  { name: 'GET /v1/ping', method: 'GET', url: '/v1/ping' },
  { name: 'POST /v1/otp/send', method: 'POST', url: '/v1/otp/send', body: { phone: '+61412346001' } },
  {
    name: 'POST /v1/otp/check',
    method: 'POST',
    url: '/v1/otp/check',
    body: { verification_id: 'ver_000000000000000000000000', code: '123456' },
  },
  { name: 'GET /v1/otp/{id}', method: 'GET', url: '/v1/otp/ver_000000000000000000000000' },
  { name: 'POST /v1/otp/{id}/cancel', method: 'POST', url: '/v1/otp/ver_000000000000000000000000/cancel' },
];

function assertProblem(res: LightMyRequestResponse, status: number, code: string): Problem {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = json<Problem>(res);
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assert.equal(body.request_id, res.headers['x-request-id']);
  return body;
}

/** Sends a request's head as written, byte for byte, and resolves with the whole answer. */
function rawRequest(port: number, head: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${head.join('\r\n')}\r\n\r\n`));
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** The body with its request_id blanked, as the raw bytes the client received. */
function withoutRequestId(res: LightMyRequestResponse): string {
  const id = json<Problem>(res).request_id;
  assert.ok(id);
  return res.body.replace(id, '<request_id>');
}

describe('spec 5 authentication', () => {
  let t: TestApp;
  let clock: FakeClock;
  let key: string;
  let workspaceId: string;

  const ping = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/v1/ping', headers });
  const bearer = (k: string) => ping({ authorization: `Bearer ${k}` });

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Auth Co' });
    key = ws.key;
    workspaceId = ws.workspaceId;
  });
  after(() => t.close());

  describe('spec 5: the key is sent as Authorization: Bearer, or X-API-Key', () => {
    test('Authorization: Bearer <key> is accepted', async () => {
      const res = await bearer(key);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).workspace_id, workspaceId);
    });

    test('X-API-Key: <key> is accepted', async () => {
      const res = await ping({ 'x-api-key': key });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).workspace_id, workspaceId);
    });

    test('both headers work on every /v1/otp endpoint (send answers 201)', async () => {
      for (const headers of [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }]) {
        const phone = 'authorization' in headers ? '+61412346002' : '+61412346003';
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/otp/send',
          headers: { ...headers, 'content-type': 'application/json' },
          payload: JSON.stringify({ phone }),
        });
        assert.equal(res.statusCode, 201, res.body);
        const id = String(json(res).id);
        const read = await t.app.inject({ method: 'GET', url: `/v1/otp/${id}`, headers });
        assert.equal(read.statusCode, 200, read.body);
      }
    });

    test('the Bearer scheme name is case-insensitive (RFC 7235)', async () => {
      const res = await ping({ authorization: `bearer ${key}` });
      assert.equal(res.statusCode, 200, res.body);
    });
  });

  describe('spec 5 row "No key" -> 401 missing_api_key', () => {
    for (const e of ENDPOINTS) {
      test(`${e.name} without a key is 401 missing_api_key`, async () => {
        const res = await t.app.inject({
          method: e.method,
          url: e.url,
          ...(e.body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(e.body) }),
        });
        assertProblem(res, 401, 'missing_api_key');
      });
    }

    test('the key is checked before the body: no key and an invalid body is still 401', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/otp/send',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ nonsense: true }),
      });
      assertProblem(res, 401, 'missing_api_key');
    });

    test('a missing key creates nothing', async () => {
      const before = await t.store.db.selectFrom('verifications').select('id').execute();
      await t.app.inject({
        method: 'POST',
        url: '/v1/otp/send',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ phone: '+61412346004' }),
      });
      const after = await t.store.db.selectFrom('verifications').select('id').execute();
      assert.equal(after.length, before.length);
    });
  });

  describe('spec 5 row "a malformed key" -> 401 malformed_api_key', () => {
    const cases: [string, () => Record<string, string>][] = [
      [
        'wrong prefix (pv_test_)',
        () => ({ authorization: `Bearer pv_test_${key.slice(KEY_PREFIX.length)}` }),
      ],
      ['no prefix', () => ({ authorization: `Bearer ${key.slice(KEY_PREFIX.length)}` })],
      ['one character too short', () => ({ authorization: `Bearer ${key.slice(0, -1)}` })],
      ['one character too long', () => ({ authorization: `Bearer ${key}x` })],
      [
        'bad checksum: one character of the random part changed',
        () => {
          const i = KEY_PREFIX.length + 5;
          const flipped = key.charAt(i) === 'Z' ? 'Y' : 'Z';
          return { authorization: `Bearer ${key.slice(0, i)}${flipped}${key.slice(i + 1)}` };
        },
      ],
      ['"Basic xyz" scheme', () => ({ authorization: 'Basic xyz' })],
      ['"Basic" scheme carrying a real key', () => ({ authorization: `Basic ${key}` })],
      ['"Bearer" with nothing', () => ({ authorization: 'Bearer' })],
      ['"Bearer" with only a space', () => ({ authorization: 'Bearer ' })],
      ['the key without a scheme', () => ({ authorization: key })],
      ['two tokens after Bearer', () => ({ authorization: `Bearer ${key} ${key}` })],
      ['X-API-Key with a wrong prefix', () => ({ 'x-api-key': `sk_live_${key.slice(KEY_PREFIX.length)}` })],
      [
        'X-API-Key with a bad checksum',
        () => ({ 'x-api-key': `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}` }),
      ],
      ['X-API-Key with "Bearer <key>"', () => ({ 'x-api-key': `Bearer ${key}` })],
    ];
    for (const [name, headers] of cases) {
      test(`${name} is 401 malformed_api_key`, async () => {
        assertProblem(await ping(headers()), 401, 'malformed_api_key');
      });
    }

    test('a malformed key on /v1/otp/send is 401 malformed_api_key too', async () => {
      const res = await client(t.app, key.slice(0, -1)).send({ phone: '+61412346005' });
      assertProblem(res, 401, 'malformed_api_key');
    });
  });

  describe('spec 5 row "Unknown, revoked, or expired key" -> 401 invalid_api_key, the same response for all three', () => {
    test('an unknown well-formed key is 401 invalid_api_key', async () => {
      assertProblem(await bearer(generateKey()), 401, 'invalid_api_key');
    });

    test('a revoked key is 401 invalid_api_key', async () => {
      const k = await t.services.keys.createKey({ workspaceId, name: 'revoked' }, OPERATOR);
      await t.services.keys.revokeKey(workspaceId, k.id, OPERATOR);
      assertProblem(await bearer(k.key), 401, 'invalid_api_key');
      assertProblem(await ping({ 'x-api-key': k.key }), 401, 'invalid_api_key');
    });

    test('an expired key is 401 invalid_api_key (fake clock past expires_in)', async () => {
      const k = await t.services.keys.createKey(
        { workspaceId, name: 'expiring', expiresInSeconds: 60 },
        OPERATOR,
      );
      assert.equal((await bearer(k.key)).statusCode, 200);
      clock.advance(59_999);
      assert.equal((await bearer(k.key)).statusCode, 200, 'still valid a millisecond before expiry');
      clock.advance(1);
      assertProblem(await bearer(k.key), 401, 'invalid_api_key');
    });

    test('unknown, revoked and expired keys get byte-identical bodies, request_id aside', async () => {
      const revoked = await t.services.keys.createKey({ workspaceId, name: 'r' }, OPERATOR);
      await t.services.keys.revokeKey(workspaceId, revoked.id, OPERATOR);
      const expired = await t.services.keys.createKey(
        { workspaceId, name: 'e', expiresInSeconds: 1 },
        OPERATOR,
      );
      clock.advance(1_000);
      const responses = [await bearer(generateKey()), await bearer(revoked.key), await bearer(expired.key)];
      for (const res of responses) assertProblem(res, 401, 'invalid_api_key');
      const bodies = responses.map(withoutRequestId);
      assert.equal(bodies[1], bodies[0], 'revoked differs from unknown');
      assert.equal(bodies[2], bodies[0], 'expired differs from unknown');
      const types = responses.map((r) => r.headers['content-type']);
      assert.equal(types[1], types[0]);
      assert.equal(types[2], types[0]);
      // The request ids themselves differ: they are per request.
      assert.equal(new Set(responses.map((r) => json<Problem>(r).request_id)).size, 3);
    });

    test('the same response for all three on /v1/otp/send too', async () => {
      const revoked = await t.services.keys.createKey({ workspaceId, name: 'r2' }, OPERATOR);
      await t.services.keys.revokeKey(workspaceId, revoked.id, OPERATOR);
      const expired = await t.services.keys.createKey(
        { workspaceId, name: 'e2', expiresInSeconds: 1 },
        OPERATOR,
      );
      clock.advance(1_000);
      const responses = [];
      for (const k of [generateKey(), revoked.key, expired.key]) {
        responses.push(await client(t.app, k).send({ phone: '+61412346006' }));
      }
      for (const res of responses) assertProblem(res, 401, 'invalid_api_key');
      const bodies = responses.map(withoutRequestId);
      assert.equal(bodies[1], bodies[0]);
      assert.equal(bodies[2], bodies[0]);
    });
  });

  describe('spec 5: revocation takes effect on the very next request; nothing is cached', () => {
    test('a key that just worked is refused on the next request after revocation', async () => {
      const k = await t.services.keys.createKey({ workspaceId, name: 'rotate me' }, OPERATOR);
      const api = client(t.app, k.key);
      assert.equal((await api.ping()).statusCode, 200);
      assert.equal((await api.send({ phone: '+61412346007' })).statusCode, 201);
      await t.services.keys.revokeKey(workspaceId, k.id, OPERATOR);
      assertProblem(await api.ping(), 401, 'invalid_api_key');
      assertProblem(await api.send({ phone: '+61412346008' }), 401, 'invalid_api_key');
    });

    test('rotation: the new key works while the old one is revoked', async () => {
      const old = await t.services.keys.createKey({ workspaceId, name: 'old' }, OPERATOR);
      const fresh = await t.services.keys.createKey({ workspaceId, name: 'new' }, OPERATOR);
      assert.equal((await bearer(old.key)).statusCode, 200);
      assert.equal((await bearer(fresh.key)).statusCode, 200);
      await t.services.keys.revokeKey(workspaceId, old.id, OPERATOR);
      assertProblem(await bearer(old.key), 401, 'invalid_api_key');
      const res = await bearer(fresh.key);
      assert.equal(res.statusCode, 200);
      assert.equal(json(res).key_name, 'new');
    });
  });

  describe('spec 5 row "Valid key without the needed scope" -> 403 insufficient_scope', () => {
    let noScopeKey: string;
    let noScopeWorkspace: string;
    let otpVerificationId: string;

    before(async () => {
      const ws = await seedWorkspace(t.services, { name: 'No Scope Co', scopes: [] });
      noScopeKey = ws.key;
      noScopeWorkspace = ws.workspaceId;
      // A verification of that workspace, made with an otp key, so the 403 is not a 404 in disguise.
      const otpKey = await t.services.keys.createKey({ workspaceId: ws.workspaceId, name: 'otp' }, OPERATOR);
      const sent = await client(t.app, otpKey.key).send({ phone: '+61412346009' });
      assert.equal(sent.statusCode, 201, sent.body);
      otpVerificationId = String(json(sent).id);
    });

    test('GET /v1/ping works without the otp scope: 200 with ok, workspace_id, key_name, scopes', async () => {
      const res = await client(t.app, noScopeKey).ping();
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res), {
        ok: true,
        workspace_id: noScopeWorkspace,
        key_name: 'test key',
        scopes: [],
      });
    });

    for (const e of ENDPOINTS.filter((x) => x.url.startsWith('/v1/otp'))) {
      test(`${e.name} without the otp scope is 403 insufficient_scope and detail names otp`, async () => {
        const url = e.url.replace('ver_000000000000000000000000', otpVerificationId);
        const body =
          e.body && typeof e.body === 'object' && 'verification_id' in e.body
            ? { verification_id: otpVerificationId, code: '123456' }
            : e.body;
        const res = await t.app.inject({
          method: e.method,
          url,
          headers:
            body === undefined
              ? { authorization: `Bearer ${noScopeKey}` }
              : { authorization: `Bearer ${noScopeKey}`, 'content-type': 'application/json' },
          payload: body === undefined ? undefined : JSON.stringify(body),
        });
        const problem = assertProblem(res, 403, 'insufficient_scope');
        assert.match(problem.detail, /\botp\b/);
      });
    }

    test('a 403 changes nothing: no send, no spent attempt, no cancel', async () => {
      const otpKey = await t.services.keys.createKey(
        { workspaceId: noScopeWorkspace, name: 'otp reader' },
        OPERATOR,
      );
      const reader = client(t.app, otpKey.key);
      const denied = client(t.app, noScopeKey);
      const sendsBefore = await t.store.db.selectFrom('verifications').select('id').execute();
      assert.equal((await denied.send({ phone: '+61412346010' })).statusCode, 403);
      assert.equal(
        (await denied.check({ verification_id: otpVerificationId, code: '000000' })).statusCode,
        403,
      );
      assert.equal((await denied.cancel(otpVerificationId)).statusCode, 403);
      const sendsAfter = await t.store.db.selectFrom('verifications').select('id').execute();
      assert.equal(sendsAfter.length, sendsBefore.length);
      const v = json(await reader.get(otpVerificationId));
      assert.equal(v.status, 'pending');
      assert.equal(v.attempts, 0);
    });

    test('a key with the otp scope reports it in ping', async () => {
      const res = await client(t.app, key).ping();
      assert.deepEqual(json(res), {
        ok: true,
        workspace_id: workspaceId,
        key_name: 'test key',
        scopes: ['otp'],
      });
    });
  });

  describe('RFC 6750 §2: the key is sent once; two credentials are 400 invalid_request, never a silent pick', () => {
    const other = () => generateKey();
    const cases: [string, () => Record<string, string | string[]>][] = [
      [
        'two Authorization headers, different keys',
        () => ({ authorization: [`Bearer ${key}`, `Bearer ${other()}`] }),
      ],
      [
        'two Authorization headers, the same key',
        () => ({ authorization: [`Bearer ${key}`, `Bearer ${key}`] }),
      ],
      [
        'Authorization and X-API-Key, different keys',
        () => ({ authorization: `Bearer ${key}`, 'x-api-key': other() }),
      ],
      [
        'Authorization and X-API-Key, the same key',
        () => ({ authorization: `Bearer ${key}`, 'x-api-key': key }),
      ],
      [
        'X-API-Key and Authorization, an unknown key first',
        () => ({ 'x-api-key': other(), authorization: `Bearer ${key}` }),
      ],
      ['two X-API-Key headers, the same key', () => ({ 'x-api-key': [key, key] })],
      ['two X-API-Key headers, different keys', () => ({ 'x-api-key': [other(), key] })],
      ['Authorization and an empty X-API-Key', () => ({ authorization: `Bearer ${key}`, 'x-api-key': '' })],
      [
        'a malformed Authorization and a valid X-API-Key',
        () => ({ authorization: 'Basic abc', 'x-api-key': key }),
      ],
    ];
    for (const [name, headers] of cases) {
      test(`${name}: 400 invalid_request, "send the API key once"`, async () => {
        const body = assertProblem(await ping(headers() as Record<string, string>), 400, 'invalid_request');
        assert.match(body.detail, /send the API key once/i);
      });
    }

    test('on /v1/otp/send too, and nothing is sent', async () => {
      const before = (await t.store.db.selectFrom('verifications').select('id').execute()).length;
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/otp/send',
        headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify({ phone: '+61412346012' }),
      });
      assertProblem(res, 400, 'invalid_request');
      assert.equal((await t.store.db.selectFrom('verifications').select('id').execute()).length, before);
    });

    test("over a real socket, Node's parser keeps only the first of two Authorization headers; they are still refused", async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const { port } = t.app.server.address() as AddressInfo;
        const raw = await rawRequest(port, [
          'GET /v1/ping HTTP/1.1',
          'Host: 127.0.0.1',
          `Authorization: Bearer ${key}`,
          `AUTHORIZATION: Bearer ${other()}`,
          'Connection: close',
        ]);
        assert.match(raw, /^HTTP\/1\.1 400 /);
        assert.match(raw, /"code":"invalid_request"/);
      } finally {
        await t.app.server.close();
      }
    });
  });

  describe('spec 1 / section 4: GET /v1/ping is free and has no side effects', () => {
    test('ping creates no verification, sends no message and spends no send allowance', async () => {
      const ws = await seedWorkspace(t.services, { name: 'Ping Co' });
      const api = client(t.app, ws.key);
      const db = t.store.db;
      const count = async () => ({
        verifications: (await db.selectFrom('verifications').select('id').execute()).length,
        outbox: (await db.selectFrom('outbox_messages').select('id').execute()).length,
        keys: await db.selectFrom('api_keys').select(['id', 'revoked_at', 'expires_at', 'scopes']).execute(),
      });
      const before = await count();
      for (let i = 0; i < 10; i++) assert.equal((await api.ping()).statusCode, 200);
      assert.deepEqual(await count(), before);
      // The per-number send allowance (5 per 10 minutes) is untouched: five sends still go through.
      for (let i = 0; i < 5; i++) assert.equal((await api.send({ phone: '+61412346011' })).statusCode, 201);
    });
  });
});
