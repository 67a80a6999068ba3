// verifyWebhook against webhooks the service itself signs and sends to a real receiver: the event comes back typed
// and equal to what the reference standardwebhooks package verifies; a tampered body, another secret, an old or
// future timestamp and odd headers are refused with WebhookVerificationError and its code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@phone-verify/client';
import { OPERATOR } from '../../src/audit/actor.js';
import { sendOk } from '../helpers/verification.js';
import { type Received, verifyWebhook as referenceVerify } from '../helpers/webhook-receiver.js';
import { type HookedApp, hookedApp } from '../webhooks/helpers.js';

function refused(fn: () => unknown, code: WebhookVerificationError['code']): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    assert.equal(error.code, code);
    return true;
  });
}

describe('verifyWebhook on the service’s own webhooks', () => {
  let h: HookedApp;
  let got: Received;
  let at: number;

  before(async () => {
    h = await hookedApp({ events: 'verification.created' });
    await sendOk(h.api, { phone: '+61412347001', channel: 'sms', metadata: { user: 'u_9' } });
    await h.t.services.webhookDelivery.runDue();
    const first = h.receiver.received[0];
    assert.ok(first, 'the service sent a webhook');
    got = first;
    at = Number(got.headers['webhook-timestamp']) * 1000;
  });
  after(() => h.close());

  test('a genuine webhook: the typed event, as the reference package reads it', () => {
    const event: WebhookEvent = verifyWebhook(got.body, got.headers, h.secret, { now: at }) as WebhookEvent;
    assert.deepEqual(event, referenceVerify(h.secret, got));
    assert.equal(event.type, 'verification.created');
    if (event.type === 'verification.created') {
      // Typed from the document's webhooks: data is the Verification.
      assert.equal(event.data.phone, '+61412347001');
      assert.equal(event.data.status, 'pending');
      assert.deepEqual(event.data.metadata, { user: 'u_9' });
    }
  });

  test('the body as a Buffer or Uint8Array, headers as Fetch Headers or in any case: the same event', () => {
    const expected = verifyWebhook(got.body, got.headers, h.secret, { now: at });
    const upper = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.deepEqual(
      verifyWebhook(Buffer.from(got.body), new Headers(got.headers), h.secret, { now: at }),
      expected,
    );
    assert.deepEqual(
      verifyWebhook(new TextEncoder().encode(got.body), upper, h.secret, { now: at }),
      expected,
    );
    // The secret without its whsec_ prefix, as some libraries store it.
    assert.deepEqual(verifyWebhook(got.body, got.headers, h.secret.slice(6), { now: at }), expected);
  });

  test('the wall clock is the default: a fresh webhook verifies without `now`', () => {
    assert.ok(Math.abs(Date.now() - at) < 60_000, 'the hooked app signs near the wall clock');
    assert.equal(verifyWebhook(got.body, got.headers, h.secret).type, 'verification.created');
  });

  test('a tampered body or a changed id or timestamp: invalid_signature', () => {
    refused(
      () => verifyWebhook(got.body.replace('pending', 'verified'), got.headers, h.secret, { now: at }),
      'invalid_signature',
    );
    refused(() => verifyWebhook(`${got.body} `, got.headers, h.secret, { now: at }), 'invalid_signature');
    refused(
      () => verifyWebhook(got.body, { ...got.headers, 'webhook-id': 'msg_other' }, h.secret, { now: at }),
      'invalid_signature',
    );
    const later = String(Number(got.headers['webhook-timestamp']) + 1);
    refused(
      () => verifyWebhook(got.body, { ...got.headers, 'webhook-timestamp': later }, h.secret, { now: at }),
      'invalid_signature',
    );
  });

  test('another secret: invalid_signature; a secret that is not one: invalid_secret', () => {
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    refused(() => verifyWebhook(got.body, got.headers, other, { now: at }), 'invalid_signature');
    for (const bad of ['', 'whsec_', 'whsec_not base64!', 'whsec_***'])
      refused(() => verifyWebhook(got.body, got.headers, bad, { now: at }), 'invalid_secret');
  });

  test('five minutes either way: older is timestamp_too_old, newer is timestamp_too_new', () => {
    assert.ok(verifyWebhook(got.body, got.headers, h.secret, { now: at + 300_000 }));
    assert.ok(verifyWebhook(got.body, got.headers, h.secret, { now: at - 300_000 }));
    refused(() => verifyWebhook(got.body, got.headers, h.secret, { now: at + 301_000 }), 'timestamp_too_old');
    refused(() => verifyWebhook(got.body, got.headers, h.secret, { now: at - 301_000 }), 'timestamp_too_new');
    refused(
      () => verifyWebhook(got.body, got.headers, h.secret, { now: at + 61_000, toleranceSeconds: 60 }),
      'timestamp_too_old',
    );
  });

  test('odd headers: missing, empty, sent twice, a timestamp that is not seconds', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const without = { ...got.headers };
      delete without[name];
      refused(() => verifyWebhook(got.body, without, h.secret, { now: at }), 'missing_header');
      refused(
        () => verifyWebhook(got.body, { ...got.headers, [name]: '' }, h.secret, { now: at }),
        'missing_header',
      );
      const twice = { ...got.headers, [name]: [got.headers[name] ?? '', got.headers[name] ?? ''] };
      refused(() => verifyWebhook(got.body, twice, h.secret, { now: at }), 'invalid_header');
    }
    for (const timestamp of ['1.5e9', '-1', ' 1764000000', '0x10', '99999999999999999', 'NaN'])
      refused(
        () =>
          verifyWebhook(got.body, { ...got.headers, 'webhook-timestamp': timestamp }, h.secret, { now: at }),
        'invalid_header',
      );
  });

  test('signature lists: a v1 among junk and other versions verifies; junk alone does not', () => {
    const good = String(got.headers['webhook-signature']);
    const mixed = `v2,abc v1,${'A'.repeat(44)} v1 v1,!!! ${good} v1a,xyz`;
    assert.ok(verifyWebhook(got.body, { ...got.headers, 'webhook-signature': mixed }, h.secret, { now: at }));
    const signature = good.slice(3);
    for (const junk of [
      'v1,',
      'v1',
      signature,
      `v2,${signature}`,
      `V1,${signature}`,
      `v1,${signature.slice(1)}`,
      '\u0000',
    ])
      refused(
        () => verifyWebhook(got.body, { ...got.headers, 'webhook-signature': junk }, h.secret, { now: at }),
        'invalid_signature',
      );
  });

  test('a parsed body cannot be verified: a TypeError says to pass the raw body', () => {
    assert.throws(
      () => verifyWebhook(JSON.parse(got.body) as never, got.headers, h.secret, { now: at }),
      (e: unknown) => e instanceof TypeError && /raw body/.test(e.message),
    );
  });

  test('a signed body that is not an event: invalid_payload', async () => {
    const { createHmac } = await import('node:crypto');
    const key = Buffer.from(h.secret.slice(6), 'base64');
    const ts = String(Math.floor(at / 1000));
    for (const body of ['not json', '[]', 'null', '{"type":1}']) {
      const signature = createHmac('sha256', key).update(`msg_x.${ts}.${body}`).digest('base64');
      refused(
        () =>
          verifyWebhook(
            body,
            { 'webhook-id': 'msg_x', 'webhook-timestamp': ts, 'webhook-signature': `v1,${signature}` },
            h.secret,
            { now: at },
          ),
        'invalid_payload',
      );
    }
  });

  test('after a rotation the header holds two signatures: either secret verifies', async () => {
    const rotated = await h.t.services.webhooks.rotateSecret(h.endpointId, OPERATOR);
    await sendOk(h.api, { phone: '+61412347002', channel: 'sms' });
    await h.t.services.webhookDelivery.runDue();
    const last = h.receiver.received.at(-1);
    assert.ok(last && last !== got);
    const when = Number(last.headers['webhook-timestamp']) * 1000;
    assert.equal(String(last.headers['webhook-signature']).split(' ').length, 2);
    assert.equal(
      verifyWebhook(last.body, last.headers, h.secret, { now: when }).type,
      'verification.created',
    );
    assert.equal(
      verifyWebhook(last.body, last.headers, rotated.secret, { now: when }).type,
      'verification.created',
    );
  });
});
