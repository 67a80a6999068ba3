// The Vonage adapter against a local fake of api.nexmo.com: what it sends (Messages API SMS, Voice API call with
// an NCCO, RS256 application JWT), how it reads each answer (accepted, definitive rejection, transient), and the
// signed-callback check (HS256 JWT with payload_hash) and status parsing.
import assert from 'node:assert/strict';
import { createHash, createHmac, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createVonageAdapter, retryAfterMs } from '../../../src/delivery/carriers/vonage/adapter.js';
import { toNcco } from '../../../src/delivery/carriers/vonage/ncco.js';
import { parseVonageStatus, verifyVonageSignature } from '../../../src/delivery/carriers/vonage/webhook.js';
import { TransientDeliveryError } from '../../../src/delivery/provider.js';
import { smsText } from '../../../src/delivery/sms-text.js';
import { voiceScript } from '../../../src/delivery/voice-script.js';
import { type FakeVonage, startFakeVonage, VONAGE_ERRORS } from '../../fakes/vonage.js';
import { outboundMessage } from '../../helpers/outbound.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const credentials = {
  apiKey: 'abcd1234',
  apiSecret: 'Sup3rS3cretApi',
  applicationId: 'aaaaaaaa-0000-4000-8000-000000000001',
  privateKey,
};
const CALLBACK = 'https://verify.example.com/webhooks/vonage/status';
const CODE = '482913';

const message = (channel: 'sms' | 'voice', locale = 'en-AU') => outboundMessage(channel, { locale }, CODE);

const decode = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));

function assertApplicationJwt(authorization: string | undefined) {
  const token = authorization?.match(/^Bearer (.+)$/)?.[1];
  assert.ok(token, 'Authorization: Bearer <jwt>');
  const [h, c, s] = token.split('.') as [string, string, string];
  assert.deepEqual(decode(h), { alg: 'RS256', typ: 'JWT' });
  assert.ok(
    verify('sha256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, 'base64url')),
    'RS256 signature',
  );
  const claims = decode(c);
  assert.deepEqual(Object.keys(claims).sort(), ['application_id', 'exp', 'iat', 'jti']);
  assert.equal(claims.application_id, credentials.applicationId);
  assert.match(claims.jti, /^[0-9a-f-]{36}$/);
  assert.ok(Math.abs(claims.iat - Date.now() / 1000) < 60);
  assert.ok(claims.exp > claims.iat);
}

describe('Vonage adapter', () => {
  let fake: FakeVonage;
  const adapter = (extra: { timeoutMs?: number; baseUrl?: string } = {}) =>
    createVonageAdapter({ credentials, baseUrl: fake.url, statusCallbackUrl: CALLBACK, ...extra });

  before(async () => {
    fake = await startFakeVonage({ applicationId: credentials.applicationId, publicKey });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
  });

  test('SMS: Messages API request, field by field, and the message_uuid as providerId', async () => {
    const result = await adapter().send(message('sms'));
    assert.deepEqual(result, { ok: true, providerId: 'aaaaaaaa-bbbb-cccc-dddd-000000000001' });
    assert.equal(fake.requests.length, 1);
    const [req] = fake.requests;
    assert.equal(req?.method, 'POST');
    assert.equal(req?.path, '/v1/messages');
    assert.equal(req?.headers['content-type'], 'application/json');
    assertApplicationJwt(req?.headers.authorization);
    assert.deepEqual(req?.json, {
      message_type: 'text',
      channel: 'sms',
      to: '61412345678',
      from: '61491570156',
      text: smsText('Acme', CODE),
      webhook_url: CALLBACK,
    });
    assert.ok(!req?.rawBody.includes(credentials.apiSecret), 'no API secret in the body');
  });

  test('voice: Voice API call with an NCCO that reads the code digit by digit twice, in en-AU, then ends', async () => {
    const result = await adapter().send(message('voice'));
    assert.equal(result.ok, true);
    assert.match(result.ok ? result.providerId : '', /^aaaaaaaa-bbbb-cccc-dddd-\d{12}$/);
    const [req] = fake.requests;
    assert.equal(req?.method, 'POST');
    assert.equal(req?.path, '/v1/calls');
    assert.equal(req?.headers['content-type'], 'application/json');
    assertApplicationJwt(req?.headers.authorization);
    const body = req?.json as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['event_method', 'event_url', 'from', 'ncco', 'to']);
    assert.deepEqual(body.to, [{ type: 'phone', number: '61412345678' }]);
    assert.deepEqual(body.from, { type: 'phone', number: '61491570156' });
    assert.deepEqual(body.event_url, [CALLBACK]);
    assert.equal(body.event_method, 'POST');
    const ncco = body.ncco as { action: string; text: string; language: string }[];
    // One talk action and nothing after it: the call hangs up when the NCCO ends.
    assert.equal(ncco.length, 1);
    assert.equal(ncco[0]?.action, 'talk');
    assert.equal(ncco[0]?.language, 'en-AU');
    const text = ncco[0]?.text ?? '';
    assert.match(text, /^<speak>.*<\/speak>$/);
    assert.equal(text.split('4, 8, 2, 9, 1, 3.').length - 1, 2, 'the code, digit by digit, twice');
    assert.ok(text.indexOf('Again') > text.indexOf('4, 8, 2'), 'second reading after the first');
    assert.match(text, /Goodbye\.<\/speak>$/);
    assert.match(text, /<break time="800ms"\/>/);
  });

  test('voice language follows the locale (en-GB, en-US; en-NZ and en-CA on the nearest confirmed voice)', () => {
    const lang = (locale: string) => toNcco(voiceScript('Acme', CODE, locale))[0]?.language;
    assert.equal(lang('en-AU'), 'en-AU');
    assert.equal(lang('en-GB'), 'en-GB');
    assert.equal(lang('en-US'), 'en-US');
    assert.equal(lang('en-NZ'), 'en-AU');
    assert.equal(lang('en-CA'), 'en-US');
  });

  test('SSML-special characters in the brand are escaped', () => {
    const [talk] = toNcco(voiceScript('A&B <Co>', CODE, 'en-US'));
    assert.match(talk?.text ?? '', /A&amp;B &lt;Co&gt;/);
  });

  const definitive = [
    [
      'SMS 401 unauthorized',
      'sms',
      VONAGE_ERRORS.unauthorized,
      'provider_error',
      /HTTP 401 unauthorized: Unauthorized/,
    ],
    [
      'SMS 402 low balance',
      'sms',
      VONAGE_ERRORS.lowBalance,
      'provider_error',
      /HTTP 402 low-balance: Low balance/,
    ],
    [
      'SMS 422 #1020 invalid params',
      'sms',
      VONAGE_ERRORS.messagesInvalidParams,
      'provider_error',
      /HTTP 422 1020/,
    ],
    [
      'SMS 422 #1040 invalid message',
      'sms',
      VONAGE_ERRORS.messagesInvalidMessage,
      'destination_rejected',
      /HTTP 422 1040: Invalid message/,
    ],
    [
      'SMS 422 #1050 number barred',
      'sms',
      VONAGE_ERRORS.messagesNumberBarred,
      'destination_rejected',
      /HTTP 422 1050: Number barred/,
    ],
    [
      'voice 400 invalid to',
      'voice',
      VONAGE_ERRORS.voiceInvalidTo,
      'destination_rejected',
      /Voice API HTTP 400 bad-request: Bad Request: invalid parameters: to\[0\]\.number/,
    ],
    ['voice 401 unauthorized', 'voice', VONAGE_ERRORS.unauthorized, 'provider_error', /Voice API HTTP 401/],
    [
      'voice 403 forbidden',
      'voice',
      VONAGE_ERRORS.voiceForbidden,
      'provider_error',
      /HTTP 403 forbidden: Forbidden/,
    ],
  ] as const;

  for (const [name, channel, reply, errorCode, words] of definitive) {
    test(`definitive rejection: ${name} -> ${errorCode}`, async () => {
      fake.queue(reply);
      const result = await adapter().send(message(channel));
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.equal(result.providerId, null);
      assert.equal(result.errorCode, errorCode);
      assert.match(result.errorMessage, words);
      for (const secret of [credentials.apiSecret, CODE, 'BEGIN PRIVATE KEY']) {
        assert.ok(!result.errorMessage.includes(secret), `errorMessage leaks ${secret}`);
      }
    });
  }

  test('a credential the fake refuses (another application) is a definitive provider_error', async () => {
    const other = createVonageAdapter({
      credentials: { ...credentials, applicationId: 'bbbbbbbb-0000-4000-8000-000000000002' },
      baseUrl: fake.url,
      statusCallbackUrl: CALLBACK,
    });
    const result = await other.send(message('sms'));
    assert.equal(result.ok || result.errorCode, 'provider_error');
  });

  test('a private key that cannot sign: provider_error, nothing sent', async () => {
    const broken = createVonageAdapter({
      credentials: { ...credentials, privateKey: 'not a key' },
      baseUrl: fake.url,
      statusCallbackUrl: CALLBACK,
    });
    const result = await broken.send(message('voice'));
    assert.equal(result.ok || result.errorCode, 'provider_error');
    assert.equal(fake.requests.length, 0);
  });

  const transientCheck = async (channel: 'sms' | 'voice', expected: RegExp, opts = {}) => {
    const err = await adapter(opts)
      .send(message(channel))
      .then(
        () => assert.fail('expected a TransientDeliveryError'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof TransientDeliveryError, String(err));
    assert.match(err.message, expected);
    for (const secret of [credentials.apiSecret, CODE]) assert.ok(!err.message.includes(secret));
    return err;
  };

  test('transient: 5xx', async () => {
    fake.queue(VONAGE_ERRORS.serverError);
    const err = await transientCheck('sms', /Messages API HTTP 500/);
    assert.equal(err.retryAfterMs, undefined);
    fake.queue({ kind: 'error', status: 503, body: {} });
    await transientCheck('voice', /Voice API HTTP 503/);
  });

  test('transient: 429 with Retry-After', async () => {
    fake.queue(VONAGE_ERRORS.throttled);
    const err = await transientCheck('sms', /HTTP 429/);
    assert.equal(err.retryAfterMs, 7000);
    fake.queue({ kind: 'error', status: 429, body: {}, headers: { 'Retry-After': '2' } });
    assert.equal((await transientCheck('voice', /HTTP 429/)).retryAfterMs, 2000);
  });

  test('transient: malformed success body', async () => {
    fake.queue({ kind: 'malformed' });
    await transientCheck('sms', /Messages API: malformed response/);
    fake.queue({ kind: 'malformed' });
    await transientCheck('voice', /Voice API: malformed response/);
  });

  test('transient: no answer within timeoutMs', async () => {
    fake.queue({ kind: 'hang' });
    await transientCheck('sms', /no answer within 200 ms/, { timeoutMs: 200 });
  });

  test('transient: connection refused', async () => {
    const closed = await startFakeVonage({ applicationId: credentials.applicationId, publicKey });
    await closed.close();
    await transientCheck('voice', /Voice API: unreachable/, { baseUrl: closed.url });
  });

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
    assert.equal(retryAfterMs('soon', now), undefined);
  });
});

describe('Vonage signed callbacks', () => {
  const signatureSecret = 'an-account-signature-secret-of-32+chars';
  const now = Date.parse('2025-03-01T10:00:00Z');
  const body = JSON.stringify({
    message_uuid: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
    to: '61412345678',
    from: '61491570156',
    timestamp: '2025-03-01T10:00:00Z',
    status: 'delivered',
    channel: 'sms',
  });
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

  function token(
    opts: { secret?: string; iat?: number; hashOf?: string; alg?: string; apiKey?: string } = {},
  ) {
    const header = b64({ alg: opts.alg ?? 'HS256', typ: 'JWT' });
    const claims = b64({
      iat: opts.iat ?? Math.floor(now / 1000),
      jti: randomUUID(),
      iss: 'Vonage',
      payload_hash: createHash('sha256')
        .update(opts.hashOf ?? body)
        .digest('hex'),
      api_key: opts.apiKey ?? credentials.apiKey,
      application_id: credentials.applicationId,
    });
    const sig = createHmac('sha256', opts.secret ?? signatureSecret)
      .update(`${header}.${claims}`)
      .digest('base64url');
    return `${header}.${claims}.${sig}`;
  }
  const check = (
    authorization: string | undefined,
    rawBody: string | Buffer = body,
    apiKey = credentials.apiKey,
  ) =>
    verifyVonageSignature(
      { headers: authorization ? { Authorization: `Bearer ${authorization}` } : {}, rawBody },
      { signatureSecret, apiKey },
      now,
    );

  test('valid: signature, fresh iat and payload_hash over the raw body', () => {
    assert.equal(check(token()), true);
    assert.equal(check(token(), Buffer.from(body)), true);
    assert.equal(check(token({ iat: Math.floor(now / 1000) - 299 })), true);
  });

  test('unsigned: no Authorization header, or not a Bearer JWT', () => {
    assert.equal(check(undefined), false);
    assert.equal(
      verifyVonageSignature({ headers: { authorization: token() }, rawBody: body }, { signatureSecret }, now),
      false,
    );
    assert.equal(check('not.a.jwt'), false);
  });

  test('tampered: body changed after signing, or claims changed under the signature', () => {
    assert.equal(check(token(), body.replace('delivered', 'rejected')), false);
    const [h, , s] = token().split('.');
    const forged = b64({
      iat: Math.floor(now / 1000),
      payload_hash: createHash('sha256').update('x').digest('hex'),
    });
    assert.equal(check(`${h}.${forged}.${s}`, 'x'), false);
  });

  test('stale: older than five minutes, or stamped well in the future', () => {
    assert.equal(check(token({ iat: Math.floor(now / 1000) - 301 })), false);
    assert.equal(check(token({ iat: Math.floor(now / 1000) + 600 })), false);
  });

  test('wrong key: another secret, another algorithm, another account', () => {
    assert.equal(check(token({ secret: 'someone-elses-signature-secret' })), false);
    assert.equal(check(token({ alg: 'none' })), false);
    assert.equal(check(token({ apiKey: 'ffff9999' })), false);
  });
});

describe('Vonage status callbacks', () => {
  const sms = (status: string, extra = {}) => ({
    message_uuid: 'msg-1',
    to: '61412345678',
    from: '61491570156',
    timestamp: '2025-03-01T10:00:00Z',
    status,
    channel: 'sms',
    ...extra,
  });
  const call = (status: string, extra = {}) => ({
    uuid: 'call-1',
    conversation_uuid: 'CON-1',
    from: '61491570156',
    to: '61412345678',
    status,
    direction: 'outbound',
    timestamp: '2025-03-01T10:00:00Z',
    ...extra,
  });

  test('Messages API statuses', () => {
    assert.deepEqual(parseVonageStatus(sms('submitted')), { providerId: 'msg-1', state: 'accepted' });
    assert.deepEqual(parseVonageStatus(JSON.stringify(sms('delivered'))), {
      providerId: 'msg-1',
      state: 'delivered',
    });
    assert.deepEqual(
      parseVonageStatus(
        sms('rejected', {
          error: {
            type: 'https://developer.vonage.com/api-errors/messages#1050',
            title: 'Number barred',
            detail: 'The number you are trying to submit to is blacklisted',
          },
        }),
      ),
      {
        providerId: 'msg-1',
        state: 'failed',
        carrierCode: '1050',
        carrierMessage: 'Number barred: The number you are trying to submit to is blacklisted',
      },
    );
    assert.deepEqual(parseVonageStatus(sms('undeliverable')), {
      providerId: 'msg-1',
      state: 'failed',
      carrierCode: 'undeliverable',
      carrierMessage: 'undeliverable',
    });
  });

  test('Voice API events', () => {
    for (const s of ['started', 'ringing', 'answered']) {
      assert.deepEqual(parseVonageStatus(call(s)), { providerId: 'call-1', state: 'accepted' });
    }
    assert.deepEqual(parseVonageStatus(call('completed')), { providerId: 'call-1', state: 'delivered' });
    for (const s of ['failed', 'rejected', 'busy', 'timeout', 'unanswered', 'cancelled']) {
      assert.deepEqual(parseVonageStatus(call(s)), {
        providerId: 'call-1',
        state: 'failed',
        carrierCode: s,
        carrierMessage: s,
      });
    }
    assert.deepEqual(parseVonageStatus(call('failed', { detail: 'invalid_number' })), {
      providerId: 'call-1',
      state: 'failed',
      carrierCode: 'failed',
      carrierMessage: 'invalid_number',
    });
  });

  test('anything else: undefined', () => {
    assert.equal(parseVonageStatus(call('machine')), undefined);
    assert.equal(parseVonageStatus({ dtmf: { digits: '1' }, uuid: 'call-1' }), undefined);
    assert.equal(parseVonageStatus('not json'), undefined);
    assert.equal(parseVonageStatus(null), undefined);
    assert.equal(parseVonageStatus([]), undefined);
  });
});
