// The Twilio adapter against a local double of Twilio's documented REST contract (test/fakes/twilio.ts):
// exactly what is sent (path, Basic auth, form encoding, every field, the TwiML), each outcome (accepted,
// definitive rejection, transient throw), and the status callback's signature and parsing.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTwilioAdapter, retryAfterMs } from '../../../src/delivery/carriers/twilio/adapter.js';
import { toTwiml } from '../../../src/delivery/carriers/twilio/twiml.js';
import { parseTwilioStatus, verifyTwilioSignature } from '../../../src/delivery/carriers/twilio/webhook.js';
import { type OutboundMessage, TransientDeliveryError } from '../../../src/delivery/provider.js';
import { smsText } from '../../../src/delivery/sms-text.js';
import { voiceScript } from '../../../src/delivery/voice-script.js';
import {
  signLikeTwilio,
  startTwilioFake,
  TWILIO_ERRORS,
  type TwilioErrorCode,
  type TwilioFake,
} from '../../fakes/twilio.js';
import { outboundMessage } from '../../helpers/outbound.js';

const ACCOUNT = { accountSid: `AC${'0a'.repeat(16)}`, authToken: 'tw-auth-token-secret-1234' };
const CALLBACK = 'https://verify.example.com/webhooks/twilio/status';
const CODE = '482913';

const message = (channel: 'sms' | 'voice', overrides: Partial<OutboundMessage> = {}) =>
  outboundMessage(channel, overrides, CODE);

describe('Twilio adapter', () => {
  let fake: TwilioFake;
  const adapter = (overrides: Partial<Parameters<typeof createTwilioAdapter>[0]> = {}) =>
    createTwilioAdapter({
      credentials: ACCOUNT,
      baseUrl: fake.baseUrl,
      statusCallbackUrl: CALLBACK,
      ...overrides,
    });

  before(async () => {
    fake = await startTwilioFake(ACCOUNT);
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
  });

  test('SMS: POST Messages.json, Basic auth, form-encoded To, From, Body, StatusCallback; sid kept', async () => {
    const result = await adapter().send(message('sms'));
    assert.equal(fake.requests.length, 1);
    const req = fake.requests[0];
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.path, `/2010-04-01/Accounts/${ACCOUNT.accountSid}/Messages.json`);
    const basic = Buffer.from(`${ACCOUNT.accountSid}:${ACCOUNT.authToken}`).toString('base64');
    assert.equal(req.headers.authorization, `Basic ${basic}`);
    assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(
      [...req.form],
      [
        ['To', '+61412345678'],
        ['From', '+61491570156'],
        ['Body', smsText('Acme', CODE)],
        ['StatusCallback', CALLBACK],
      ],
    );
    assert.equal(result.ok, true);
    assert.ok(result.ok && /^SM[0-9a-f]{32}$/.test(result.providerId), 'the Message sid is the provider id');
  });

  test('voice: POST Calls.json with inline Twiml, StatusCallback and StatusCallbackEvent per event', async () => {
    const result = await adapter().send(message('voice'));
    const req = fake.requests[0];
    assert.ok(req);
    assert.equal(req.path, `/2010-04-01/Accounts/${ACCOUNT.accountSid}/Calls.json`);
    assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(
      [...req.form],
      [
        ['To', '+61412345678'],
        ['From', '+61491570156'],
        ['Twiml', toTwiml(voiceScript('Acme', CODE, 'en-AU'), 'en-AU')],
        ['StatusCallback', CALLBACK],
        ['StatusCallbackEvent', 'answered'],
        ['StatusCallbackEvent', 'completed'],
      ],
    );
    assert.ok(!req.rawBody.includes(encodeURIComponent(smsText('Acme', CODE))), 'the SMS text is not sent');
    assert.ok(result.ok && /^CA[0-9a-f]{32}$/.test(result.providerId), 'the Call sid is the provider id');
  });

  test("TwiML: each digit read separately, twice, in the locale's voice, then hang up", () => {
    const twiml = toTwiml(voiceScript('Acme & Co', CODE, 'en-AU'), 'en-AU');
    assert.equal(
      twiml,
      '<Response>' +
        '<Say voice="Polly.Olivia-Neural" language="en-AU">Hello. This is Acme &amp; Co. Your verification code is:</Say>' +
        '<Say voice="Polly.Olivia-Neural" language="en-AU">4, 8, 2, 9, 1, 3.</Say>' +
        '<Pause length="1"/>' +
        '<Say voice="Polly.Olivia-Neural" language="en-AU">Again, your code is:</Say>' +
        '<Say voice="Polly.Olivia-Neural" language="en-AU">4, 8, 2, 9, 1, 3.</Say>' +
        '<Pause length="1"/>' +
        '<Say voice="Polly.Olivia-Neural" language="en-AU">Goodbye.</Say>' +
        '<Hangup/>' +
        '</Response>',
    );
  });

  // A voice Twilio lists for each locale: a mismatched pair may make <Say> fail. Canada has no voice of its own.
  const VOICES: Record<string, string> = {
    'en-AU': '<Say voice="Polly.Olivia-Neural" language="en-AU">',
    'en-US': '<Say voice="Polly.Joanna-Neural" language="en-US">',
    'en-GB': '<Say voice="Polly.Amy-Neural" language="en-GB">',
    'en-NZ': '<Say voice="Polly.Aria-Neural" language="en-NZ">',
    'en-CA': '<Say voice="Polly.Joanna-Neural" language="en-US">',
  };
  for (const [locale, expected] of Object.entries(VOICES)) {
    test(`voice in ${locale}: every <Say> is ${expected}`, async () => {
      await adapter().send(message('voice', { locale }));
      const twiml = fake.requests[0]?.form.get('Twiml') ?? '';
      const says = twiml.match(/<Say [^>]*>/g) ?? [];
      assert.equal(says.length, 5);
      for (const say of says) assert.equal(say, expected);
      assert.equal(twiml.split('4, 8, 2, 9, 1, 3.').length - 1, 2, 'the code is read twice');
      assert.ok(twiml.endsWith('<Hangup/></Response>'));
    });
  }

  test('baseUrl with a trailing slash still hits the documented path', async () => {
    await adapter({ baseUrl: `${fake.baseUrl}/` }).send(message('sms'));
    assert.equal(fake.requests[0]?.path, `/2010-04-01/Accounts/${ACCOUNT.accountSid}/Messages.json`);
  });

  const definitive: [TwilioErrorCode, 'destination_rejected' | 'provider_error'][] = [
    [21211, 'destination_rejected'],
    [21614, 'destination_rejected'],
    [21608, 'destination_rejected'],
    [21219, 'destination_rejected'],
    [21610, 'destination_rejected'],
    [21606, 'provider_error'],
    [20404, 'provider_error'],
  ];
  for (const [code, errorCode] of definitive) {
    test(`Twilio ${code} (HTTP ${TWILIO_ERRORS[code].status}): definitive ${errorCode}, carrier code and words kept`, async () => {
      fake.reply({ kind: 'error', code });
      const result = await adapter().send(message('sms'));
      assert.deepEqual(result, {
        ok: false,
        providerId: null,
        errorCode,
        errorMessage: `Twilio HTTP ${TWILIO_ERRORS[code].status} ${code}: ${TWILIO_ERRORS[code].message}`,
      });
    });
  }

  test('bad credentials: the double answers 20003 (401), a provider_error that names no secret', async () => {
    const wrong = createTwilioAdapter({
      credentials: { accountSid: ACCOUNT.accountSid, authToken: 'not-the-token' },
      baseUrl: fake.baseUrl,
      statusCallbackUrl: CALLBACK,
    });
    const result = await wrong.send(message('sms'));
    assert.deepEqual(result, {
      ok: false,
      providerId: null,
      errorCode: 'provider_error',
      errorMessage: 'Twilio HTTP 401 20003: Authenticate',
    });
    assert.equal(fake.requests.length, 1, 'a definitive rejection is not retried by the adapter');
  });

  async function assertTransient(
    send: Promise<unknown>,
    retryAfter?: number,
  ): Promise<TransientDeliveryError> {
    const err = await send.then(
      () => assert.fail('expected a TransientDeliveryError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TransientDeliveryError, `got ${String(err)}`);
    assert.equal(err.retryAfterMs, retryAfter);
    for (const secret of [ACCOUNT.authToken, CODE, smsText('Acme', CODE)]) {
      assert.ok(!err.message.includes(secret), 'no credentials or message body in the error');
    }
    return err;
  }

  for (const status of [500, 502, 503] as const) {
    test(`HTTP ${status}: transient`, async () => {
      fake.reply({ kind: 'server_error', status });
      await assertTransient(adapter().send(message('sms')));
    });
  }

  test('503 with Retry-After: transient, retryAfterMs from the header', async () => {
    fake.reply({ kind: 'server_error', status: 503, retryAfter: '30' });
    await assertTransient(adapter().send(message('voice')), 30_000);
  });

  test('429 with Retry-After: transient, retryAfterMs from the header', async () => {
    fake.reply({ kind: 'rate_limited', retryAfter: '7' });
    await assertTransient(adapter().send(message('sms')), 7_000);
  });

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:00:12 GMT', now), 12_000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
  });

  test('malformed success body (no sid): transient', async () => {
    fake.reply({ kind: 'malformed' });
    await assertTransient(adapter().send(message('sms')));
  });

  test('no answer within timeoutMs: transient', async () => {
    fake.reply({ kind: 'hang' });
    const err = await assertTransient(adapter({ timeoutMs: 150 }).send(message('sms')));
    assert.match(err.message, /timed out/);
  });

  test('connection refused: transient', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assertTransient(adapter({ baseUrl: `http://127.0.0.1:${port}` }).send(message('sms')));
  });
});

describe('Twilio status callback signature', () => {
  const url = `${CALLBACK}?v=ver_1`;
  const params = {
    AccountSid: ACCOUNT.accountSid,
    ApiVersion: '2010-04-01',
    ErrorCode: '30003',
    From: '+61491570156',
    MessageSid: `SM${'1b'.repeat(16)}`,
    MessageStatus: 'undelivered',
    SmsSid: `SM${'1b'.repeat(16)}`,
    SmsStatus: 'undelivered',
    To: '+61412345678',
  };
  const rawBody = new URLSearchParams(params).toString();
  const signed = (signature: string | undefined, body = rawBody, at = url) => ({
    url: at,
    headers: signature === undefined ? {} : { 'x-twilio-signature': signature },
    rawBody: body,
  });
  const signature = signLikeTwilio(ACCOUNT.authToken, url, params);

  test("Twilio's documented example verifies", () => {
    const example = new URLSearchParams({
      CallSid: 'CA1234567890ABCDE',
      Caller: '+14158675309',
      Digits: '1234',
      From: '+14158675309',
      To: '+18005551212',
    });
    const request = {
      url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
      headers: { 'X-Twilio-Signature': 'RSOYDt4T1cUTdK1PDd93/VVr8B8=' },
      rawBody: example.toString(),
    };
    assert.equal(verifyTwilioSignature(request, { authToken: '12345' }), true);
  });

  test('valid: signed with the auth token over URL and sorted parameters', () => {
    assert.equal(verifyTwilioSignature(signed(signature), ACCOUNT), true);
  });

  test('valid whether or not Twilio put the default port in the URL', () => {
    const withPort = 'https://verify.example.com:443/webhooks/twilio/status?v=ver_1';
    assert.equal(
      verifyTwilioSignature(signed(signLikeTwilio(ACCOUNT.authToken, withPort, params)), ACCOUNT),
      true,
    );
    assert.equal(verifyTwilioSignature(signed(signature, rawBody, withPort), ACCOUNT), true);
  });

  test('unsigned: rejected', () => {
    assert.equal(verifyTwilioSignature(signed(undefined), ACCOUNT), false);
    assert.equal(verifyTwilioSignature(signed(''), ACCOUNT), false);
  });

  test('tampered body, URL or signature: rejected', () => {
    const delivered = rawBody.replace('MessageStatus=undelivered', 'MessageStatus=delivered');
    assert.equal(verifyTwilioSignature(signed(signature, delivered), ACCOUNT), false);
    assert.equal(verifyTwilioSignature(signed(signature, `${rawBody}&Extra=1`), ACCOUNT), false);
    assert.equal(verifyTwilioSignature(signed(signature, rawBody, `${CALLBACK}?v=ver_2`), ACCOUNT), false);
    assert.equal(verifyTwilioSignature(signed(`${signature.slice(0, -2)}A=`), ACCOUNT), false);
  });

  test('wrong key: rejected', () => {
    const other = signLikeTwilio('another-accounts-token', url, params);
    assert.equal(verifyTwilioSignature(signed(other), ACCOUNT), false);
    assert.equal(verifyTwilioSignature(signed(signature), { authToken: 'another-accounts-token' }), false);
  });

  test('stale: the scheme has no timestamp, so a replay verifies; applying it again must be harmless', () => {
    // Nothing in X-Twilio-Signature dates the request; the replay guard is idempotent status handling.
    assert.equal(verifyTwilioSignature(signed(signature), ACCOUNT), true);
    assert.deepEqual(parseTwilioStatus(rawBody), parseTwilioStatus(rawBody));
  });
});

describe('Twilio status callback parsing', () => {
  const sid = `SM${'2c'.repeat(16)}`;
  const sms = (status: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({ MessageSid: sid, MessageStatus: status, ...extra }).toString();

  for (const [status, state] of [
    ['queued', 'accepted'],
    ['sent', 'accepted'],
    ['delivered', 'delivered'],
  ] as const) {
    test(`message ${status}: ${state}`, () => {
      assert.deepEqual(parseTwilioStatus(sms(status)), { providerId: sid, state });
    });
  }

  for (const status of ['undelivered', 'failed']) {
    test(`message ${status}: failed, with Twilio's ErrorCode`, () => {
      assert.deepEqual(parseTwilioStatus(sms(status, { ErrorCode: '30003' })), {
        providerId: sid,
        state: 'failed',
        carrierCode: '30003',
        carrierMessage: status,
      });
    });
  }

  const call = `CA${'3d'.repeat(16)}`;
  test('call completed: delivered; in-progress: accepted', () => {
    assert.deepEqual(parseTwilioStatus({ CallSid: call, CallStatus: 'completed' }), {
      providerId: call,
      state: 'delivered',
    });
    assert.deepEqual(parseTwilioStatus({ CallSid: call, CallStatus: 'in-progress' }), {
      providerId: call,
      state: 'accepted',
    });
  });

  for (const status of ['busy', 'no-answer', 'failed', 'canceled']) {
    test(`call ${status}: failed, the call status kept as the carrier code`, () => {
      assert.deepEqual(parseTwilioStatus(new URLSearchParams({ CallSid: call, CallStatus: status })), {
        providerId: call,
        state: 'failed',
        carrierCode: status,
        carrierMessage: status,
      });
    });
  }

  test('not a status callback, or an unknown status: undefined', () => {
    assert.equal(parseTwilioStatus(''), undefined);
    assert.equal(parseTwilioStatus('Body=hello&From=%2B61412345678'), undefined);
    assert.equal(parseTwilioStatus(sms('teleported')), undefined);
  });
});
