// api-decisions "Wire format" and "Errors: RFC 9457 problem details" (the error table, 429 aside: tested with
// the limits), plus "No CORS" and "never a 500 for bad input".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../helpers/api-types.js';
import { client, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';

const UNKNOWN_ID = 'ver_000000000000000000000000';

/** RFC 9457 problem: content type, the six members, status and code, request_id = X-Request-Id. */
function assertProblem(res: LightMyRequestResponse, status: number, code: string): Problem {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json(;|$)/);
  const body = json<Problem>(res);
  for (const member of ['type', 'title', 'detail', 'code', 'request_id'] as const) {
    assert.equal(typeof body[member], 'string', `${member} is a string`);
    assert.ok(body[member].length > 0, `${member} is not empty`);
  }
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.match(body.code, /^[a-z]+(_[a-z]+)*$/, 'code is snake_case');
  assert.equal(body.request_id, res.headers['x-request-id']);
  return body;
}

function fieldsOf(problem: Problem): string[] {
  assert.ok(Array.isArray(problem.errors), 'errors[] is present');
  for (const e of problem.errors) {
    assert.equal(typeof e.field, 'string');
    assert.equal(typeof e.message, 'string');
    assert.ok(e.message.length > 0);
  }
  return problem.errors.map((e) => e.field);
}

describe('api-decisions: errors and wire format', () => {
  let t: TestApp;
  let key: string;
  let api: ReturnType<typeof client>;
  let phoneSeq = 20;
  /** A distinct number for each send: sends to one number are limited to 5 per 10 minutes. */
  const nextPhone = () => `+614123460${String(phoneSeq++).padStart(2, '0')}`;

  const post = (url: string, headers: Record<string, string>, payload?: string) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, ...headers }, payload });

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Errors Co' });
    key = ws.key;
    api = client(t.app, key);
  });
  after(() => t.close());

  describe('wire format: every error is application/problem+json with type,title,status,detail,code,request_id', () => {
    test('errors of every kind share the envelope, and request_id equals the X-Request-Id header', async () => {
      const responses: [LightMyRequestResponse, number, string][] = [
        [await t.app.inject({ method: 'GET', url: '/v1/ping' }), 401, 'missing_api_key'],
        [await client(t.app, 'pv_live_short').ping(), 401, 'malformed_api_key'],
        [await api.get(UNKNOWN_ID), 404, 'not_found'],
        [await api.send({ phone: 'garbage' }), 400, 'invalid_phone'],
        [await api.send({}), 400, 'invalid_request'],
        [await post('/v1/otp/send', { 'content-type': 'text/plain' }, 'hi'), 415, 'unsupported_media_type'],
        [await api.get('does-not-exist/at/all'), 404, 'not_found'],
      ];
      for (const [res, status, code] of responses) {
        const body = assertProblem(res, status, code);
        assert.match(body.type, /^[a-z][a-z0-9+.-]*:/, 'type is a URI');
      }
    });

    test('the same code always has the same type and title', async () => {
      const a = assertProblem(await api.get(UNKNOWN_ID), 404, 'not_found');
      const b = assertProblem(await api.cancel(UNKNOWN_ID), 404, 'not_found');
      assert.equal(a.type, b.type);
      assert.equal(a.title, b.title);
    });
  });

  describe('wire format: every response carries X-Request-Id', () => {
    test('successes, errors, the OpenAPI document and the docs all carry a distinct X-Request-Id', async () => {
      const responses = [
        await api.ping(),
        await api.send({ phone: nextPhone() }),
        await api.get(UNKNOWN_ID),
        await t.app.inject({ method: 'GET', url: '/v1/ping' }),
        await t.app.inject({ method: 'GET', url: '/openapi.json' }),
        await t.app.inject({ method: 'GET', url: '/docs' }),
        await t.app.inject({ method: 'GET', url: '/nowhere' }),
        await t.app.inject({ method: 'OPTIONS', url: '/v1/otp/send' }),
      ];
      const ids = responses.map((r) => r.headers['x-request-id']);
      for (const [i, id] of ids.entries()) {
        assert.equal(typeof id, 'string', `response ${i} has X-Request-Id`);
        assert.ok(String(id).length > 0);
      }
      assert.equal(new Set(ids).size, ids.length, 'each request has its own id');
    });
  });

  describe('errors table 415 unsupported_media_type: a body must be Content-Type: application/json', () => {
    test('text/plain body is 415', async () => {
      const res = await post(
        '/v1/otp/send',
        { 'content-type': 'text/plain' },
        JSON.stringify({ phone: nextPhone() }),
      );
      assertProblem(res, 415, 'unsupported_media_type');
    });

    test('a body with no Content-Type is 415', async () => {
      const res = await post('/v1/otp/send', {}, JSON.stringify({ phone: nextPhone() }));
      assertProblem(res, 415, 'unsupported_media_type');
    });

    test('form-encoded and multipart bodies are 415', async () => {
      assertProblem(
        await post(
          '/v1/otp/send',
          { 'content-type': 'application/x-www-form-urlencoded' },
          'phone=%2B61412346030',
        ),
        415,
        'unsupported_media_type',
      );
      assertProblem(
        await post('/v1/otp/check', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--'),
        415,
        'unsupported_media_type',
      );
    });

    test('check with text/plain is 415 too', async () => {
      const res = await post('/v1/otp/check', { 'content-type': 'text/plain' }, '{"code":"123456"}');
      assertProblem(res, 415, 'unsupported_media_type');
    });

    test('application/json with a charset parameter is accepted', async () => {
      const res = await post(
        '/v1/otp/send',
        { 'content-type': 'application/json; charset=utf-8' },
        JSON.stringify({ phone: nextPhone() }),
      );
      assert.equal(res.statusCode, 201, res.body);
    });

    test('a request without a body needs no Content-Type (cancel)', async () => {
      const sent = await api.send({ phone: nextPhone() });
      const res = await api.cancel(String(json(sent).id));
      assert.equal(res.statusCode, 200, res.body);
    });
  });

  describe('errors table 413 payload_too_large: bodies over 16 KiB', () => {
    test('a 17 KiB JSON body is 413', async () => {
      const res = await api.send({ phone: nextPhone(), metadata: { pad: 'x'.repeat(17 * 1024) } });
      assertProblem(res, 413, 'payload_too_large');
    });

    test('a body just over 16 KiB (16385 bytes) is 413 on check as well', async () => {
      const base = JSON.stringify({ code: '123456', verification_id: UNKNOWN_ID, pad: '' });
      const payload = base.replace('"pad":""', `"pad":"${'y'.repeat(16 * 1024 + 1 - base.length)}"`);
      assert.equal(Buffer.byteLength(payload), 16 * 1024 + 1);
      assertProblem(
        await post('/v1/otp/check', { 'content-type': 'application/json' }, payload),
        413,
        'payload_too_large',
      );
    });

    test('a body of 16 KiB or less is read (and here refused for its content, not its size)', async () => {
      const base = JSON.stringify({ phone: '+61412346031', metadata: { pad: '' } });
      const payload = base.replace('"pad":""', `"pad":"${'z'.repeat(16 * 1024 - base.length)}"`);
      assert.equal(Buffer.byteLength(payload), 16 * 1024);
      const problem = assertProblem(
        await post('/v1/otp/send', { 'content-type': 'application/json' }, payload),
        400,
        'invalid_request',
      );
      assert.ok(fieldsOf(problem).includes('metadata'), 'metadata over 4 KiB is named');
    });
  });

  describe('errors table 400 invalid_request: malformed JSON, unknown fields, missing, wrong type, out of range', () => {
    for (const [name, payload] of [
      ['truncated JSON', '{"phone":'],
      ['single quotes', "{'phone':'+61412346032'}"],
      ['trailing comma', '{"phone":"+61412346032",}'],
      ['empty body with application/json', ''],
      ['bare word', 'phone'],
    ] as const) {
      test(`malformed JSON (${name}) is 400 invalid_request`, async () => {
        assertProblem(
          await post('/v1/otp/send', { 'content-type': 'application/json' }, payload),
          400,
          'invalid_request',
        );
      });
    }

    test('an unknown field is 400 naming it', async () => {
      const problem = assertProblem(
        await api.send({ phone: nextPhone(), colour: 'red' }),
        400,
        'invalid_request',
      );
      assert.deepEqual(fieldsOf(problem), ['colour']);
    });

    test('each of several unknown fields is named', async () => {
      const problem = assertProblem(
        await api.send({ phone: nextPhone(), colour: 'red', to: '+61412346033', code: '1234' }),
        400,
        'invalid_request',
      );
      assert.deepEqual(new Set(fieldsOf(problem)), new Set(['colour', 'to', 'code']));
    });

    test('unknown fields on check are named', async () => {
      const problem = assertProblem(
        await api.check({ verification_id: UNKNOWN_ID, code: '123456', otp: '1', remember: true }),
        400,
        'invalid_request',
      );
      assert.deepEqual(new Set(fieldsOf(problem)), new Set(['otp', 'remember']));
    });

    test('a missing required field is named (send: phone; check: code)', async () => {
      assert.deepEqual(fieldsOf(assertProblem(await api.send({ channel: 'sms' }), 400, 'invalid_request')), [
        'phone',
      ]);
      assert.deepEqual(
        fieldsOf(assertProblem(await api.check({ verification_id: UNKNOWN_ID }), 400, 'invalid_request')),
        ['code'],
      );
    });

    test('every bad field is named at once in errors[]', async () => {
      const problem = assertProblem(
        await api.send({
          phone: nextPhone(),
          channel: 'fax',
          code_length: 12,
          ttl_seconds: 30,
          max_attempts: 0,
          country: 'FR',
          brand_name: 'b'.repeat(61),
          metadata: [],
        }),
        400,
        'invalid_request',
      );
      assert.deepEqual(
        new Set(fieldsOf(problem)),
        new Set([
          'channel',
          'code_length',
          'ttl_seconds',
          'max_attempts',
          'country',
          'brand_name',
          'metadata',
        ]),
      );
    });

    test('wrong types are 400, not coerced: "6" for code_length, "300" for ttl_seconds, true for max_attempts', async () => {
      for (const [field, value] of [
        ['code_length', '6'],
        ['ttl_seconds', '300'],
        ['max_attempts', true],
        ['code_length', 6.5],
        ['phone', 61412346034],
        ['channel', ['sms']],
        ['metadata', 'x'],
      ] as const) {
        const problem = assertProblem(
          await api.send({ phone: nextPhone(), [field]: value }),
          400,
          'invalid_request',
        );
        assert.deepEqual(fieldsOf(problem), [field], `${field}=${JSON.stringify(value)}`);
      }
    });

    test('wrong types on check are 400: a numeric code, an object verification_id', async () => {
      assert.deepEqual(
        fieldsOf(
          assertProblem(
            await api.check({ verification_id: UNKNOWN_ID, code: 123456 }),
            400,
            'invalid_request',
          ),
        ),
        ['code'],
      );
      assert.deepEqual(
        fieldsOf(
          assertProblem(await api.check({ verification_id: {}, code: '123456' }), 400, 'invalid_request'),
        ),
        ['verification_id'],
      );
    });

    test('check needs exactly one of verification_id and phone, and a code with digits', async () => {
      assertProblem(await api.check({ code: '123456' }), 400, 'invalid_request');
      assertProblem(
        await api.check({ code: '123456', verification_id: UNKNOWN_ID, phone: '+61412346035' }),
        400,
        'invalid_request',
      );
      assert.deepEqual(
        fieldsOf(
          assertProblem(
            await api.check({ code: 'abc', verification_id: UNKNOWN_ID }),
            400,
            'invalid_request',
          ),
        ),
        ['code'],
      );
    });

    test('a body that is not an object is 400', async () => {
      for (const payload of ['[]', 'null', '42', '"phone"', 'true']) {
        assertProblem(
          await post('/v1/otp/send', { 'content-type': 'application/json' }, payload),
          400,
          'invalid_request',
        );
      }
    });
  });

  describe('errors table 400 invalid_phone: the number cannot be parsed or is not valid for its country', () => {
    test('garbage is invalid_phone', async () => {
      assertProblem(await api.send({ phone: 'garbage' }), 400, 'invalid_phone');
    });

    test('an invalid number (+61 1234) is invalid_phone', async () => {
      assertProblem(await api.send({ phone: '+61 1234' }), 400, 'invalid_phone');
    });

    test('a number not valid for its country is invalid_phone (+61 0 …, too long)', async () => {
      assertProblem(await api.send({ phone: '+61412345678901' }), 400, 'invalid_phone');
    });

    test('a national number without country, when the workspace has no number, is invalid_phone', async () => {
      const ws = await seedWorkspace(t.services, { name: 'Numberless', numbers: [] });
      const res = await client(t.app, ws.key).send({ phone: '0412 346 036' });
      assertProblem(res, 400, 'invalid_phone');
    });

    test('check by phone with garbage is invalid_phone', async () => {
      assertProblem(await api.check({ phone: 'not a number', code: '123456' }), 400, 'invalid_phone');
    });
  });

  describe('errors table 400 unsupported_country: outside AU, US, CA, GB, NZ', () => {
    test('+44 7400 123456 (GB) is supported', async () => {
      const res = await api.send({ phone: '+44 7400 123456' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(json(res).phone, '+447400123456');
    });

    test('+33 1 23 45 67 89 (France) is unsupported_country', async () => {
      assertProblem(await api.send({ phone: '+33 1 23 45 67 89' }), 400, 'unsupported_country');
    });

    test('+1 876 Jamaica is unsupported_country although it shares +1 with US/CA', async () => {
      assertProblem(await api.send({ phone: '+1 876 210 1234' }), 400, 'unsupported_country');
    });

    test('US, CA and NZ numbers are supported', async () => {
      for (const phone of ['+1 415 555 2671', '+1 613 555 0123', '+64 21 123 4567']) {
        const res = await api.send({ phone });
        assert.equal(res.statusCode, 201, `${phone}: ${res.body}`);
      }
    });

    test('check by phone with a French number is unsupported_country', async () => {
      assertProblem(
        await api.check({ phone: '+33 1 23 45 67 89', code: '123456' }),
        400,
        'unsupported_country',
      );
    });
  });

  describe('errors table 404 not_found: unknown id, or an id of another workspace (no existence leak)', () => {
    let foreignId: string;

    before(async () => {
      const other = await seedWorkspace(t.services, { name: 'Other Co' });
      const sent = await client(t.app, other.key).send({ phone: '+61412346037' });
      assert.equal(sent.statusCode, 201, sent.body);
      foreignId = String(json(sent).id);
    });

    /** The body with the request id and the asked-for id blanked, so the two answers can be compared. */
    const normalised = (res: LightMyRequestResponse, id: string) =>
      res.body.replace(json<Problem>(res).request_id, '<request_id>').replaceAll(id, '<id>');

    const cases: [string, (id: string) => Promise<LightMyRequestResponse>][] = [
      ['GET /v1/otp/{id}', (id) => api.get(id)],
      ['POST /v1/otp/{id}/cancel', (id) => api.cancel(id)],
      ['POST /v1/otp/check by verification_id', (id) => api.check({ verification_id: id, code: '123456' })],
    ];
    for (const [name, call] of cases) {
      test(`${name}: unknown id and another workspace's id get the same 404 not_found`, async () => {
        const unknown = await call(UNKNOWN_ID);
        const foreign = await call(foreignId);
        assertProblem(unknown, 404, 'not_found');
        assertProblem(foreign, 404, 'not_found');
        assert.equal(normalised(foreign, foreignId), normalised(unknown, UNKNOWN_ID));
        assert.equal(foreign.headers['content-type'], unknown.headers['content-type']);
      });
    }

    test('the foreign verification is untouched by those attempts', async () => {
      const v = await t.store.db
        .selectFrom('verifications')
        .select(['status', 'attempts'])
        .where('id', '=', foreignId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(v, { status: 'pending', attempts: 0 });
    });

    test('an id that is not even id-shaped is 404 not_found, not 400 or 500', async () => {
      for (const id of ['x', 'ver_', '%F0%9F%93%9E', 'ver_000000000000000000000000000000000000000000']) {
        assertProblem(await api.get(id), 404, 'not_found');
      }
    });

    test('an id past the router’s 100 characters is 404 not_found too, as a problem', async () => {
      assertProblem(await api.get(`ver_${'0'.repeat(120)}`), 404, 'not_found');
      assertProblem(await api.cancel(`ver_${'0'.repeat(120)}`), 404, 'not_found');
    });

    test('a URL that cannot be decoded (a stray %, bytes that are not UTF-8) is 400 invalid_request', async () => {
      for (const id of ['%', '%zz', '%80', '%ED%A0%80', '%C0%80']) {
        assertProblem(await api.get(id), 400, 'invalid_request');
        assertProblem(await api.cancel(id), 400, 'invalid_request');
      }
      const webhook = await t.app.inject({ method: 'POST', url: '/webhooks/twilio/%80' });
      assertProblem(webhook, 400, 'invalid_request');
    });

    test('an unknown route under /v1 is 404 not_found', async () => {
      assertProblem(await api.get('ver_1/whatever'), 404, 'not_found');
    });
  });

  describe('errors table 409 channel_unavailable with reason', () => {
    test('SMS from a workspace with only a landline: reason no_mobile_number', async () => {
      const ws = await seedWorkspace(t.services, {
        name: 'Landline Co',
        numbers: [{ number: '+61291234567' }],
      });
      const problem = assertProblem(
        await client(t.app, ws.key).send({ phone: '+61412346038', channel: 'sms' }),
        409,
        'channel_unavailable',
      );
      assert.equal(problem.reason, 'no_mobile_number');
    });

    test('a workspace without numbers: reason no_sender_number', async () => {
      const ws = await seedWorkspace(t.services, { name: 'Numberless 2', numbers: [] });
      const problem = assertProblem(
        await client(t.app, ws.key).send({ phone: '+61412346039' }),
        409,
        'channel_unavailable',
      );
      assert.equal(problem.reason, 'no_sender_number');
    });
  });

  describe('errors table 404 no_verification: check by phone for a number with none', () => {
    test('is 404 no_verification', async () => {
      assertProblem(await api.check({ phone: '+61412346040', code: '123456' }), 404, 'no_verification');
    });
  });

  describe('errors table 500 internal_error: nothing internal leaks', () => {
    test('a broken database gives a 500 problem with no internal detail', async () => {
      const broken = await createTestApp();
      try {
        const ws = await seedWorkspace(broken.services, { name: 'Broken' });
        await broken.store.db.destroy();
        const res = await client(broken.app, ws.key).ping();
        const problem = assertProblem(res, 500, 'internal_error');
        assert.doesNotMatch(res.body, /destroy|kysely|sqlite|stack|\.ts\b|\bat /i);
        assert.equal('stack' in problem, false);
      } finally {
        await broken.close();
      }
    });
  });

  describe('no CORS: no Access-Control-Allow-* header on any /v1 response', () => {
    const origin = 'https://evil.example';
    const assertNoCors = (res: LightMyRequestResponse) => {
      const cors = Object.keys(res.headers).filter((h) => h.toLowerCase().startsWith('access-control-allow'));
      assert.deepEqual(cors, [], `${res.statusCode} carries ${cors.join(', ')}`);
    };

    test('successful GET and POST with an Origin header carry none', async () => {
      const headers = { authorization: `Bearer ${key}`, origin };
      assertNoCors(await t.app.inject({ method: 'GET', url: '/v1/ping', headers }));
      const sent = await t.app.inject({
        method: 'POST',
        url: '/v1/otp/send',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ phone: nextPhone() }),
      });
      assert.equal(sent.statusCode, 201, sent.body);
      assertNoCors(sent);
      const id = String(json(sent).id);
      assertNoCors(await t.app.inject({ method: 'GET', url: `/v1/otp/${id}`, headers }));
      assertNoCors(await t.app.inject({ method: 'POST', url: `/v1/otp/${id}/cancel`, headers }));
    });

    test('errors with an Origin header carry none', async () => {
      assertNoCors(await t.app.inject({ method: 'GET', url: '/v1/ping', headers: { origin } }));
      assertNoCors(
        await t.app.inject({
          method: 'GET',
          url: `/v1/otp/${UNKNOWN_ID}`,
          headers: { origin, 'x-api-key': key },
        }),
      );
    });

    for (const url of [
      '/v1/ping',
      '/v1/otp/send',
      '/v1/otp/check',
      `/v1/otp/${UNKNOWN_ID}`,
      `/v1/otp/${UNKNOWN_ID}/cancel`,
    ]) {
      test(`an OPTIONS preflight to ${url} with Origin and Access-Control-Request-Method carries none`, async () => {
        const res = await t.app.inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin,
            'access-control-request-method': url.endsWith('ping') || url.endsWith('0') ? 'GET' : 'POST',
            'access-control-request-headers': 'authorization, content-type',
          },
        });
        assertNoCors(res);
        assert.ok(res.statusCode < 500, `preflight answered ${res.statusCode}`);
      });
    }
  });

  describe('never a 500 for bad input: odd bodies on send and check are 4xx problems', () => {
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const rawBodies: [string, string][] = [
      ['an array', '[]'],
      ['an array of objects', '[{"phone":"+61412346041"}]'],
      ['null', 'null'],
      ['a number', '42'],
      ['a string', '"+61412346041"'],
      ['true', 'true'],
      ['an empty object', '{}'],
      ['__proto__ pollution', '{"phone":"+61412346041","__proto__":{"admin":true}}'],
      [
        'constructor.prototype pollution',
        '{"phone":"+61412346041","constructor":{"prototype":{"admin":true}}}',
      ],
      ['deeply nested arrays in metadata', `{"phone":"+61412346041","metadata":{"a":${deep(7000)}}}`],
      ['deeply nested unclosed arrays', '['.repeat(15000)],
      ['a byte-order mark', '\uFEFF{"phone":"+61412346041"'],
      ['a NUL byte', '{"phone":"\u0000"}'],
      ['a lone surrogate escape', '{"phone":"\\ud800","code":"\\udfff"}'],
      ['JSON then junk', '{"phone":"+61412346041"} trailing'],
      ['duplicate keys with junk', '{"phone":1,"phone":{"x":[null]}}'],
    ];
    const objectBodies: [string, unknown][] = [
      ['phone: null', { phone: null }],
      ['phone: []', { phone: [] }],
      ['phone: {}', { phone: {} }],
      ['phone: nested junk', { phone: { a: [1, { b: null }] } }],
      ['phone: a 10 000-character string', { phone: '9'.repeat(10_000) }],
      ['phone: emoji', { phone: '📞📞📞📞📞📞' }],
      ['phone: right-to-left text', { phone: 'رقم الهاتف' }],
      ['phone: control characters', { phone: '\u0007\u0008\u001b[2J' }],
      ['phone: only "+"', { phone: '+' }],
      ['phone: empty string', { phone: '' }],
      ['code: null', { code: null, verification_id: UNKNOWN_ID }],
      ['code: array', { code: ['1', '2'], verification_id: UNKNOWN_ID }],
      ['code: fullwidth digits (no ASCII digit)', { code: '１２３４５６', verification_id: UNKNOWN_ID }],
      ['code: a 10 000-character string', { code: '1'.repeat(10_000), verification_id: UNKNOWN_ID }],
      ['verification_id: emoji', { code: '123456', verification_id: '🙂' }],
      ['verification_id: huge', { code: '123456', verification_id: 'v'.repeat(10_000) }],
      ['metadata: null', { phone: '+61412346041', metadata: null }],
      ['metadata: number', { phone: '+61412346041', metadata: 7 }],
      ['country: lower-case', { phone: '0412346041', country: 'au' }],
      ['code_length: huge number', { phone: '+61412346041', code_length: 1e308 }],
      ['ttl_seconds: negative', { phone: '+61412346041', ttl_seconds: -1 }],
      ['brand_name: URL', { phone: '+61412346042', brand_name: 'visit https://evil.example now' }],
      ['brand_name: line break', { phone: '+61412346043', brand_name: 'Acme\nBank' }],
    ];

    for (const url of ['/v1/otp/send', '/v1/otp/check']) {
      for (const [name, payload] of rawBodies) {
        test(`${url} with ${name} is a 4xx problem`, async () => {
          const res = await post(url, { 'content-type': 'application/json' }, payload);
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode}: ${res.body}`);
          assertProblem(res, res.statusCode, json<Problem>(res).code);
        });
      }
      for (const [name, body] of objectBodies) {
        test(`${url} with ${name} is a 4xx problem`, async () => {
          const res = await post(url, { 'content-type': 'application/json' }, JSON.stringify(body));
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode}: ${res.body}`);
          assertProblem(res, res.statusCode, json<Problem>(res).code);
        });
      }
    }

    test('metadata nested 2000 deep but under 4 KiB is accepted, echoed and read back (no 500)', async () => {
      const text = `{"a":${deep(2000)}}`;
      const nested = JSON.parse(text);
      const sent = await api.send({ phone: nextPhone(), metadata: nested });
      assert.equal(sent.statusCode, 201, sent.body.slice(0, 300));
      assert.equal(JSON.stringify(json(sent).metadata), text);
      const read = await api.get(String(json(sent).id));
      assert.equal(read.statusCode, 200, read.body.slice(0, 300));
      assert.equal(JSON.stringify(json(read).metadata), text);
    });

    test('prototype pollution did not take: a fresh object has no admin property', () => {
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });
  });
});
