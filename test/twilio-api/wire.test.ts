// The Twilio-compatible API on the wire, attacked where the SDK would never go: credentials in every wrong shape,
// bodies that are not form-encoded, too large, repeated, with NUL and odd Unicode, path segments that are not ids,
// and a fuzz of every parameter. Every answer is a 4xx in Twilio's error body (or a success), never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { twilioServiceSid } from '../../src/twilio-api/sids.js';
import { seedWorkspace } from '../helpers/app.js';
import { text } from '../helpers/fuzz-inputs.js';
import { sendRaw, statusOf } from '../helpers/raw-http.js';
import { ANY_ACCOUNT_SID, startTwilioApp, type TwilioTestApp } from '../helpers/twilio.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

/** Twilio's error body, exactly: `{ code, message, more_info, status }`, status as the HTTP status. */
function assertTwilioError(res: LightMyRequestResponse, status: number, code?: number): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'more_info', 'status']);
  assert.equal(body.status, status);
  assert.equal(typeof body.code, 'number');
  assert.equal(typeof body.message, 'string');
  if (code !== undefined) assert.equal(body.code, code, String(body.message));
}

describe('Twilio-compatible API on the wire', () => {
  let t: TwilioTestApp;
  let key = '';
  let base = '';
  let auth = '';

  before(async () => {
    t = await startTwilioApp();
    const ws = await seedWorkspace(t.services);
    key = ws.key;
    auth = basic(ANY_ACCOUNT_SID, key);
    base = `/twilio/v2/Services/${twilioServiceSid(ws.workspaceId)}`;
  });
  after(() => t.close());

  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { authorization: auth, 'content-type': FORM, ...headers },
    });

  test('credentials: none, Bearer, X-API-Key, no username, no colon, not base64 are each 401 20003 with WWW-Authenticate', async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${key}` },
      { 'x-api-key': key },
      { authorization: basic('', key) },
      { authorization: `Basic ${Buffer.from(key).toString('base64')}` },
      { authorization: 'Basic !!!not-base64!!!' },
      { authorization: 'Basic' },
      { authorization: basic(ANY_ACCOUNT_SID, '') },
      { authorization: basic(ANY_ACCOUNT_SID, `${key}\u0000`) },
      { authorization: basic(ANY_ACCOUNT_SID, 'é'.repeat(5000)) },
    ];
    for (const headers of cases) {
      const res = await t.app.inject({ method: 'GET', url: base, headers });
      assertTwilioError(res, 401, 20003);
      assert.match(String(res.headers['www-authenticate']), /^Basic /);
    }
    // Any username will do: the password is the key.
    for (const user of [ANY_ACCOUNT_SID, 'SK123', 'x', 'ünïcode']) {
      const res = await t.app.inject({
        method: 'GET',
        url: base,
        headers: { authorization: basic(user, key) },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  test('credentials twice (two Authorization headers, or X-API-Key beside Basic) are 401: one caller per request', async () => {
    const both = await t.app.inject({
      method: 'GET',
      url: base,
      headers: { authorization: auth, 'x-api-key': key },
    });
    assertTwilioError(both, 401, 20003);
    const conn = await sendRaw(t.url, [
      `GET ${base} HTTP/1.1`,
      'Host: x',
      `Authorization: ${auth}`,
      `Authorization: ${auth}`,
      'Connection: close',
    ]);
    await new Promise((resolve) => conn.socket.once('close', resolve));
    assert.equal(statusOf(conn.received()), 401);
  });

  test('a JSON body is 415 60200 (form-encoded only); the rest of the service still takes JSON', async () => {
    const res = await post(`${base}/Verifications`, JSON.stringify({ To: '+61412349201', Channel: 'sms' }), {
      'content-type': 'application/json',
    });
    assertTwilioError(res, 415, 60200);
    assert.match(res.json().message, /form-encoded/);
    const v1 = await t.app.inject({
      method: 'POST',
      url: '/v1/otp/send',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ phone: '+61412349201', channel: 'sms' }),
    });
    assert.equal(v1.statusCode, 201, v1.body);
    // ...and /v1 still refuses a form body.
    const v1Form = await t.app.inject({
      method: 'POST',
      url: '/v1/otp/send',
      headers: { authorization: `Bearer ${key}`, 'content-type': FORM },
      payload: 'phone=%2B61412349201',
    });
    assert.equal(v1Form.statusCode, 415);
  });

  test('a body over 4 KiB is 413 60200; a missing body is 400 60200 naming To', async () => {
    const huge = `To=%2B61412349202&Channel=sms&CustomFriendlyName=${'a'.repeat(5000)}`;
    assertTwilioError(await post(`${base}/Verifications`, huge), 413, 60200);
    const empty = await post(`${base}/Verifications`, '');
    assertTwilioError(empty, 400, 60200);
    assert.match(empty.json().message, /To|body/);
  });

  test('repeated parameters, NUL, lone surrogates and odd Unicode are 400 60200, never a 500', async () => {
    const bodies = [
      'To=%2B61412349203&To=%2B61412349204&Channel=sms',
      'To=%2B61412349203&Channel=sms&Channel=call',
      'To=%2B6141234%00203&Channel=sms',
      'To=%2B61412349203&Channel=sms&CustomFriendlyName=%ED%A0%80',
      'To=%2B61412349203&Channel=sms%00',
      `To=${encodeURIComponent('＋６１４１２３４９２０３')}&Channel=sms&CustomFriendlyName=${encodeURIComponent('\u202eevil')}`,
      'To=%2B61412349203&Channel=sms&Locale=%F0%9F%98%80',
      'To[]=1&Channel=sms',
      'To=%2B61412349203&Channel=sms&%00=1',
    ];
    for (const body of bodies) {
      const res = await post(`${base}/Verifications`, body);
      assert.ok(res.statusCode < 500, `${body}: ${res.statusCode} ${res.body}`);
      if (res.statusCode >= 400) assertTwilioError(res, res.statusCode);
      else assert.equal(res.statusCode, 201, body);
    }
  });

  test('path segments that are not ids: NUL, bad percent-encoding, over 100 characters, another shape: Twilio 4xx bodies', async () => {
    for (const sid of ['%00', 'VE%00', `VE${'0'.repeat(200)}`, '%E0%A4%A', '..%2F..', '%F0%9F%98%80']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `${base}/Verifications/${sid}`,
        headers: { authorization: auth },
      });
      assert.ok(res.statusCode === 404 || res.statusCode === 400, `${sid}: ${res.statusCode} ${res.body}`);
      assertTwilioError(res, res.statusCode);
    }
    const bad = await t.app.inject({
      method: 'GET',
      url: '/twilio/v2/Services/%ZZ',
      headers: { authorization: auth },
    });
    assertTwilioError(bad, 400, 60200);
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/twilio/v1/Services',
      headers: { authorization: auth },
    });
    assertTwilioError(unknown, 404, 20404);
  });

  test('a fuzz of every parameter and the path: always a success or a Twilio 4xx body, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            To: text,
            Channel: fc.oneof(fc.constantFrom('sms', 'call', 'email'), text),
            CustomFriendlyName: text,
            Locale: fc.oneof(fc.constantFrom('en', 'en-GB'), text),
            Code: text,
            VerificationSid: text,
            Status: fc.oneof(fc.constant('canceled'), text),
          },
          { requiredKeys: [] },
        ),
        fc.constantFrom('/Verifications', '/VerificationCheck', '/Verifications/x'),
        async (fields, path) => {
          const body = new URLSearchParams(fields as Record<string, string>).toString();
          const res = await post(`${base}${path}`, body);
          assert.ok(res.statusCode < 500, `${path} ${body}: ${res.statusCode} ${res.body}`);
          if (res.statusCode >= 400) assertTwilioError(res, res.statusCode);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('concurrent checks of one verification through the facade: the attempt budget holds, one answer each, no 500', async () => {
    const sent = await post(`${base}/Verifications`, 'To=%2B61412349205&Channel=sms');
    assert.equal(sent.statusCode, 201, sent.body);
    const sid = String(sent.json().sid);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(`${base}/VerificationCheck`, `VerificationSid=${sid}&Code=000000`),
      ),
    );
    const statuses = answers.map((r) => r.statusCode);
    assert.ok(
      statuses.every((s) => s === 200 || s === 429),
      statuses.join(),
    );
    const row = await t.store.db
      .selectFrom('verifications')
      .select(['attempts', 'max_attempts', 'status'])
      .where('phone', '=', '+61412349205')
      .executeTakeFirstOrThrow();
    assert.ok(row.attempts <= row.max_attempts, `${row.attempts} attempts`);
    // The code 000000 may be right one time in a million: then one check approved it.
    assert.ok(row.status === 'failed' || row.status === 'verified', row.status);
  });

  test('concurrent creates to one number: exactly one verification is pending (supersede is atomic)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post(`${base}/Verifications`, 'To=%2B61412349206&Channel=sms')),
    );
    for (const res of answers) assert.equal(res.statusCode, 201, res.body);
    const pending = await t.store.db
      .selectFrom('verifications')
      .select('id')
      .where('phone', '=', '+61412349206')
      .where('status', '=', 'pending')
      .execute();
    assert.equal(pending.length, 1);
  });
});
