// The Telnyx adapter against a local double of the documented API (test/fakes/telnyx.ts): exactly what it
// sends, each outcome (accepted, definitive rejection, transient throw), the TeXML it renders, and the
// Ed25519 webhook signature and status parsing.
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTelnyxAdapter, retryAfterMs } from '../../../src/delivery/carriers/telnyx/adapter.js';
import { toTexml } from '../../../src/delivery/carriers/telnyx/texml.js';
import { parseTelnyxStatus, verifyTelnyxSignature } from '../../../src/delivery/carriers/telnyx/webhook.js';
import type { OutboundMessage } from '../../../src/delivery/provider.js';
import { TransientDeliveryError } from '../../../src/delivery/provider.js';
import { voiceScript } from '../../../src/delivery/voice-script.js';
import { type FakeTelnyx, signTelnyxWebhook, startFakeTelnyx } from '../../fakes/telnyx.js';
import { outboundMessage } from '../../helpers/outbound.js';

const API_KEY = 'KEY0123456789ABCDEF_secretpart';
const CONNECTION_ID = '1684641123236054244';
const CALLBACK = 'https://verify.example.com/webhooks/telnyx';
const TEXT = 'Acme: do not share this code with anyone. Your verification code is 482915';

const message = (overrides: Partial<OutboundMessage> = {}) =>
  outboundMessage('sms', { text: TEXT, ...overrides }, '482915');

describe('Telnyx adapter', () => {
  let fake: FakeTelnyx;
  const adapter = (extra: { apiKey?: string; connectionId?: string; timeoutMs?: number } = {}) =>
    createTelnyxAdapter({
      credentials: { apiKey: extra.apiKey ?? API_KEY, connectionId: extra.connectionId ?? CONNECTION_ID },
      baseUrl: `${fake.baseUrl}/`,
      statusCallbackUrl: CALLBACK,
      ...(extra.timeoutMs ? { timeoutMs: extra.timeoutMs } : {}),
    });

  before(async () => {
    fake = await startFakeTelnyx(API_KEY);
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.answerWith({ kind: 'success' });
  });

  const only = () => {
    assert.equal(fake.requests.length, 1);
    const [req] = fake.requests;
    assert.ok(req);
    return req;
  };

  /** Neither the key nor the message body may leak into what the caller logs. */
  const assertNoSecrets = (words: string) => {
    assert.ok(!words.includes(API_KEY), 'API key leaked');
    assert.ok(!words.includes('482915'), 'message body leaked');
  };

  describe('SMS (Messaging API v2)', () => {
    test('sends POST /v2/messages, bearer key, JSON {from, to, text, webhook_url}; accepted with data.id', async () => {
      const outcome = await adapter().send(message());
      const req = only();
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/v2/messages');
      assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(req.headers['content-type'], 'application/json');
      assert.deepEqual(req.json, {
        from: '+61491570156',
        to: '+61412345678',
        text: TEXT,
        webhook_url: CALLBACK,
      });
      assert.deepEqual(outcome, { ok: true, providerId: fake.issuedIds.at(-1) });
    });

    test('a configured messaging profile is sent as messaging_profile_id', async () => {
      const withProfile = createTelnyxAdapter({
        credentials: { apiKey: API_KEY, messagingProfileId: '4001767e-ce0f-4cae-9d5f-0d5e636e7809' },
        baseUrl: fake.baseUrl,
        statusCallbackUrl: CALLBACK,
      });
      assert.equal((await withProfile.send(message())).ok, true);
      assert.deepEqual(only().json, {
        from: '+61491570156',
        to: '+61412345678',
        text: TEXT,
        webhook_url: CALLBACK,
        messaging_profile_id: '4001767e-ce0f-4cae-9d5f-0d5e636e7809',
      });
    });

    test("an invalid 'to' (40310) is a definitive destination_rejected with Telnyx's code and words", async () => {
      fake.answerWith({ kind: 'error', name: 'invalid_to' });
      const outcome = await adapter().send(message());
      assert.equal(outcome.ok, false);
      assert.ok(!outcome.ok);
      assert.equal(outcome.providerId, null);
      assert.equal(outcome.errorCode, 'destination_rejected');
      assert.match(outcome.errorMessage, /HTTP 400/);
      assert.match(outcome.errorMessage, /HTTP 400 40310: Invalid 'to' address/);
      assertNoSecrets(outcome.errorMessage);
    });

    test('a wrong API key (401, 10009) is a definitive provider_error, the key kept out of the message', async () => {
      const outcome = await adapter({ apiKey: 'KEYwrong' }).send(message());
      assert.equal(only().headers.authorization, 'Bearer KEYwrong');
      assert.ok(!outcome.ok);
      assert.equal(outcome.errorCode, 'provider_error');
      assert.match(outcome.errorMessage, /HTTP 401 10009: Authentication failed/);
      assert.ok(!outcome.errorMessage.includes('KEYwrong'));
      assertNoSecrets(outcome.errorMessage);
    });

    test('403 (10010 authorization failed) is a definitive provider_error', async () => {
      fake.answerWith({ kind: 'error', name: 'authorization_failed' });
      const outcome = await adapter().send(message());
      assert.ok(!outcome.ok);
      assert.equal(outcome.errorCode, 'provider_error');
      assert.match(outcome.errorMessage, /10010/);
    });
  });

  describe('voice (TeXML call, script inline)', () => {
    test('sends POST /v2/texml/calls/{connection_id}, bearer key, JSON {From, To, Texml}; accepted with call_sid', async () => {
      const outcome = await adapter().send(message({ channel: 'voice' }));
      const req = only();
      assert.equal(req.method, 'POST');
      assert.equal(req.path, `/v2/texml/calls/${CONNECTION_ID}`);
      assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(req.headers['content-type'], 'application/json');
      const body = req.json as Record<string, string>;
      assert.deepEqual(Object.keys(body).sort(), ['From', 'Texml', 'To']);
      assert.equal(body.From, '+61491570156');
      assert.equal(body.To, '+61412345678');
      assert.equal(body.Texml, toTexml(voiceScript('Acme', '482915', 'en-AU')));
      assert.deepEqual(outcome, { ok: true, providerId: fake.issuedIds.at(-1) });
      assert.match(String(outcome.ok && outcome.providerId), /^v3:/);
    });

    test('the TeXML reads the code digit by digit twice, in the locale, then hangs up', () => {
      const texml = toTexml(voiceScript('Acme & Co', '482915', 'en-AU'));
      assert.ok(texml.startsWith('<?xml version="1.0" encoding="UTF-8"?><Response>'));
      assert.ok(texml.endsWith('<Hangup/></Response>'));
      const digits = '<Say voice="Polly.Olivia-Neural" language="en-AU">4, 8, 2, 9, 1, 5.</Say>';
      assert.equal(texml.split(digits).length - 1, 2, 'the digits are read twice');
      assert.ok(texml.includes('Acme &amp; Co'), 'text is XML-escaped');
      assert.ok(texml.includes('<Pause length="1"/>'));
      assert.ok(!texml.includes('482915'), 'the code is never read as one number');
    });

    for (const [locale, voice] of [
      ['en-AU', 'Polly.Olivia-Neural'],
      ['en-US', 'Polly.Joanna-Neural'],
      ['en-GB', 'Polly.Amy-Neural'],
      ['en-NZ', 'Polly.Aria-Neural'],
      ['en-CA', 'alice'],
    ] as const) {
      test(`${locale}: every <Say> uses language="${locale}" (voice ${voice})`, () => {
        const texml = toTexml(voiceScript('Acme', '1234', locale));
        const says = texml.match(/<Say [^>]*>/g) ?? [];
        assert.equal(says.length, 5);
        for (const say of says) assert.equal(say, `<Say voice="${voice}" language="${locale}">`);
      });
    }

    test('an invalid destination (422, 10002) is destination_rejected', async () => {
      fake.answerWith({ kind: 'error', name: 'invalid_phone_number' });
      const outcome = await adapter().send(message({ channel: 'voice' }));
      assert.ok(!outcome.ok);
      assert.equal(outcome.errorCode, 'destination_rejected');
      assert.match(outcome.errorMessage, /HTTP 422 10002: Invalid phone number/);
    });

    test('an account without a TeXML connection id is a provider_error, and nothing is sent', async () => {
      const outcome = await adapter({ connectionId: '' }).send(message({ channel: 'voice' }));
      assert.equal(fake.requests.length, 0);
      assert.ok(!outcome.ok);
      assert.equal(outcome.errorCode, 'provider_error');
    });
  });

  describe('transient failures throw TransientDeliveryError', () => {
    const assertTransient = async (
      channel: 'sms' | 'voice',
      check?: (err: TransientDeliveryError) => void,
    ) => {
      await assert.rejects(adapter({ timeoutMs: 300 }).send(message({ channel })), (err: unknown) => {
        assert.ok(
          err instanceof TransientDeliveryError,
          `expected TransientDeliveryError, got ${String(err)}`,
        );
        assertNoSecrets(err.message);
        check?.(err);
        return true;
      });
    };

    for (const channel of ['sms', 'voice'] as const) {
      test(`${channel}: 503 and 500`, async () => {
        fake.answerWith({ kind: 'server_error', status: 503 });
        await assertTransient(channel, (err) => assert.match(err.message, /503/));
        fake.answerWith({ kind: 'server_error', status: 500 });
        await assertTransient(channel, (err) => assert.equal(err.retryAfterMs, undefined));
      });

      test(`${channel}: 429 with Retry-After (seconds) carries the delay`, async () => {
        fake.answerWith({ kind: 'rate_limited', retryAfter: '7' });
        await assertTransient(channel, (err) => assert.equal(err.retryAfterMs, 7000));
      });

      test(`${channel}: a malformed 200 body`, async () => {
        fake.answerWith({ kind: 'malformed' });
        await assertTransient(channel, (err) => assert.match(err.message, /malformed/));
      });

      test(`${channel}: a carrier that never answers (timeout)`, async () => {
        fake.answerWith({ kind: 'hang' });
        await assertTransient(channel, (err) => assert.match(err.message, /timed out/));
        assert.equal(fake.requests.length, 1);
      });
    }

    test('connection refused', async () => {
      const gone = await startFakeTelnyx(API_KEY);
      const baseUrl = gone.baseUrl;
      await gone.close();
      const refused = createTelnyxAdapter({
        credentials: { apiKey: API_KEY },
        baseUrl,
        statusCallbackUrl: CALLBACK,
      });
      await assert.rejects(refused.send(message()), (err: unknown) => {
        assert.ok(err instanceof TransientDeliveryError);
        assert.match(err.message, /ECONNREFUSED/);
        assertNoSecrets(err.message);
        return true;
      });
    });

    test('Retry-After as an HTTP date', () => {
      const now = Date.parse('2026-11-21T09:30:00Z');
      assert.equal(retryAfterMs('Sat, 21 Nov 2026 09:30:30 GMT', now), 30_000);
      assert.equal(retryAfterMs(null, now), undefined);
      assert.equal(retryAfterMs('soon', now), undefined);
    });
  });
});

describe('Telnyx webhook signature (Ed25519)', () => {
  let privateKey: KeyObject;
  let publicKey: string;
  let otherPrivateKey: KeyObject;
  const now = Date.parse('2026-11-21T09:30:00Z');
  const nowSeconds = now / 1000;
  const body = JSON.stringify({
    data: {
      event_type: 'message.finalized',
      id: 'evt',
      payload: { id: 'msg_1', to: [{ status: 'delivered' }] },
    },
  });

  before(() => {
    const pair = generateKeyPairSync('ed25519');
    privateKey = pair.privateKey;
    // The portal shows the raw 32-byte key in base64; the JWK's x is the same bytes, base64url.
    const jwk = pair.publicKey.export({ format: 'jwk' });
    publicKey = Buffer.from(String(jwk.x), 'base64url').toString('base64');
    otherPrivateKey = generateKeyPairSync('ed25519').privateKey;
  });

  test('a valid signature passes (string or Buffer body)', () => {
    const headers = signTelnyxWebhook(privateKey, body, nowSeconds - 10);
    assert.equal(verifyTelnyxSignature({ headers, rawBody: body, publicKey, now }), true);
    assert.equal(verifyTelnyxSignature({ headers, rawBody: Buffer.from(body), publicKey, now }), true);
    assert.equal(
      verifyTelnyxSignature({ headers: { ...headers }, rawBody: body, publicKey, now: now + 289_000 }),
      true,
    );
  });

  test('unsigned: no signature, no timestamp, or neither', () => {
    const headers = signTelnyxWebhook(privateKey, body, nowSeconds);
    assert.equal(verifyTelnyxSignature({ headers: {}, rawBody: body, publicKey, now }), false);
    assert.equal(
      verifyTelnyxSignature({
        headers: { 'telnyx-timestamp': headers['telnyx-timestamp'] },
        rawBody: body,
        publicKey,
        now,
      }),
      false,
    );
    assert.equal(
      verifyTelnyxSignature({
        headers: { 'telnyx-signature-ed25519': headers['telnyx-signature-ed25519'] },
        rawBody: body,
        publicKey,
        now,
      }),
      false,
    );
  });

  test('tampered: body changed, timestamp changed, signature garbled', () => {
    const headers = signTelnyxWebhook(privateKey, body, nowSeconds);
    const tampered = body.replace('delivered', 'delivery_failed');
    assert.equal(verifyTelnyxSignature({ headers, rawBody: tampered, publicKey, now }), false);
    const moved = { ...headers, 'telnyx-timestamp': String(nowSeconds - 1) };
    assert.equal(verifyTelnyxSignature({ headers: moved, rawBody: body, publicKey, now }), false);
    const garbled = { ...headers, 'telnyx-signature-ed25519': 'bm90IGEgc2lnbmF0dXJl' };
    assert.equal(verifyTelnyxSignature({ headers: garbled, rawBody: body, publicKey, now }), false);
    const notANumber = { ...headers, 'telnyx-timestamp': `${nowSeconds}x` };
    assert.equal(verifyTelnyxSignature({ headers: notANumber, rawBody: body, publicKey, now }), false);
  });

  test('stale (over five minutes old) and from the future are refused, by the injected clock', () => {
    const old = signTelnyxWebhook(privateKey, body, nowSeconds - 301);
    assert.equal(verifyTelnyxSignature({ headers: old, rawBody: body, publicKey, now }), false);
    const future = signTelnyxWebhook(privateKey, body, nowSeconds + 301);
    assert.equal(verifyTelnyxSignature({ headers: future, rawBody: body, publicKey, now }), false);
  });

  test('signed with another key, or checked against a malformed key', () => {
    const headers = signTelnyxWebhook(otherPrivateKey, body, nowSeconds);
    assert.equal(verifyTelnyxSignature({ headers, rawBody: body, publicKey, now }), false);
    const good = signTelnyxWebhook(privateKey, body, nowSeconds);
    assert.equal(verifyTelnyxSignature({ headers: good, rawBody: body, publicKey: 'c2hvcnQ=', now }), false);
    assert.equal(verifyTelnyxSignature({ headers: good, rawBody: body, publicKey: '', now }), false);
  });

  test('an array header (repeated) uses its first value', () => {
    const headers = signTelnyxWebhook(privateKey, body, nowSeconds);
    const repeated = { ...headers, 'telnyx-signature-ed25519': [headers['telnyx-signature-ed25519'], 'x'] };
    assert.equal(verifyTelnyxSignature({ headers: repeated, rawBody: body, publicKey, now }), true);
  });
});

describe('parseTelnyxStatus', () => {
  const messageEvent = (eventType: string, status: string, errors: unknown[] = []) => ({
    data: {
      event_type: eventType,
      id: 'evt_1',
      occurred_at: '2026-11-21T09:30:00.000+00:00',
      payload: { id: 'msg_1', to: [{ phone_number: '+61412345678', status }], errors },
      record_type: 'event',
    },
    meta: { attempt: 1, delivered_to: CALLBACK },
  });

  test('message.finalized delivered -> delivered', () => {
    assert.deepEqual(parseTelnyxStatus(messageEvent('message.finalized', 'delivered')), {
      providerId: 'msg_1',
      state: 'delivered',
    });
  });

  test('message.finalized delivery_failed / sending_failed -> failed with the carrier code and words', () => {
    const errors = [{ code: '40001', title: 'Not routable', detail: 'Destination is a landline' }];
    assert.deepEqual(parseTelnyxStatus(messageEvent('message.finalized', 'delivery_failed', errors)), {
      providerId: 'msg_1',
      state: 'failed',
      carrierCode: '40001',
      carrierMessage: 'Destination is a landline',
    });
    assert.deepEqual(parseTelnyxStatus(messageEvent('message.finalized', 'sending_failed')), {
      providerId: 'msg_1',
      state: 'failed',
      carrierMessage: 'sending_failed',
    });
  });

  test('message.sent and delivery_unconfirmed -> accepted; message.received -> not a status', () => {
    assert.equal(parseTelnyxStatus(messageEvent('message.sent', 'sent'))?.state, 'accepted');
    assert.equal(
      parseTelnyxStatus(messageEvent('message.finalized', 'delivery_unconfirmed'))?.state,
      'accepted',
    );
    assert.equal(parseTelnyxStatus(messageEvent('message.received', 'webhook_delivered')), undefined);
  });

  test('the raw JSON text parses the same as the object', () => {
    const event = messageEvent('message.finalized', 'delivered');
    assert.deepEqual(parseTelnyxStatus(JSON.stringify(event)), parseTelnyxStatus(event));
  });

  test('TeXML status callbacks (form-encoded): completed, no-answer, busy, ringing', () => {
    const form = (fields: Record<string, string>) =>
      new URLSearchParams({
        AccountSid: 'acc',
        CallbackSource: 'call-progress-events',
        ...fields,
      }).toString();
    assert.deepEqual(parseTelnyxStatus(form({ CallSid: 'v3:abc', CallStatus: 'completed' })), {
      providerId: 'v3:abc',
      state: 'delivered',
    });
    assert.deepEqual(parseTelnyxStatus(form({ CallSid: 'v3:abc', CallStatus: 'no-answer' })), {
      providerId: 'v3:abc',
      state: 'failed',
      carrierCode: 'no-answer',
      carrierMessage: 'no-answer',
    });
    assert.deepEqual(
      parseTelnyxStatus({
        CallSid: 'v3:abc',
        CallStatus: 'failed',
        ErrorCode: '10001',
        ErrorMessage: 'Call failed',
      }),
      { providerId: 'v3:abc', state: 'failed', carrierCode: '10001', carrierMessage: 'Call failed' },
    );
    assert.equal(parseTelnyxStatus({ CallSid: 'v3:abc', CallStatus: 'busy' })?.state, 'failed');
    assert.equal(parseTelnyxStatus({ CallSid: 'v3:abc', CallStatus: 'ringing' })?.state, 'accepted');
  });

  test('Call Control call.hangup: normal clearing delivered, anything else failed', () => {
    const hangup = (cause: string) => ({
      data: { event_type: 'call.hangup', payload: { call_control_id: 'v3:cc', hangup_cause: cause } },
    });
    assert.deepEqual(parseTelnyxStatus(hangup('normal_clearing')), {
      providerId: 'v3:cc',
      state: 'delivered',
    });
    assert.deepEqual(parseTelnyxStatus(hangup('user_busy')), {
      providerId: 'v3:cc',
      state: 'failed',
      carrierCode: 'user_busy',
    });
  });

  test('anything else is not a status', () => {
    for (const junk of [
      undefined,
      null,
      42,
      '',
      'not json {',
      '{"data": 1}',
      { data: { event_type: 'x' } },
      {},
    ]) {
      assert.equal(parseTelnyxStatus(junk), undefined);
    }
  });
});
