// In a real browser, the Webhooks page: reached from the navigation; an endpoint added in the form (a refused URL
// is explained), its signing secret shown once; a verification's events and a test event delivered to a real
// receiver (verified with the standardwebhooks package) and listed as attempts with their answer and latency;
// "resend" sends an event again with the same webhook-id; rotation shows a new secret and both sign; removal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Dialog } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import {
  type ApiCall,
  andWait,
  apiCaller,
  browserSkip,
  openSignedInApp,
  type SignedInApp,
  screenshot,
} from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

const PATH = '/dashboard/webhooks';

describe('browser: webhooks', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let api: ApiCall;
  let receiver: Receiver;
  let secret = '';

  before(async () => {
    // The server inherits these: a receiver on 127.0.0.1, polled often.
    process.env.WEBHOOK_ALLOW_PRIVATE = 'true';
    process.env.DELIVERY_POLL_MS = '100';
    receiver = await startReceiver();
    b = await openSignedInApp('Acme', ['+61491570156']);
    api = apiCaller(b);
    b.page.on('dialog', (d: Dialog) => void d.accept());
  });
  after(async () => {
    await b?.close();
    await receiver?.close();
  });

  const open = () => b.page.goto(`${b.baseUrl}${PATH}`);
  const endpointCard = () => b.page.locator('article.webhook-endpoint');

  test('reached from the navigation; a refused URL is explained; an added endpoint shows its secret once', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}/dashboard`);
    await andWait(page, () => page.getByRole('link', { name: 'Webhooks' }).click());
    assert.equal(new URL(page.url()).pathname, PATH);
    assert.match((await page.locator('#endpoints').textContent()) ?? '', /No endpoint yet/);

    await page.getByLabel('URL').fill('https://user:pw@hooks.example.com/');
    await andWait(page, () => page.getByRole('button', { name: 'Add endpoint' }).click());
    assert.match((await page.locator('#add-error').textContent()) ?? '', /must not hold credentials/);

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('verification.created').check();
    await page.getByLabel('verification.verified').check();
    await andWait(page, () => page.getByRole('button', { name: 'Add endpoint' }).click());
    secret = await page.locator('#new-webhook-secret').inputValue();
    assert.match(secret, /^whsec_/);
    assert.match((await endpointCard().textContent()) ?? '', /verification\.created, verification\.verified/);
    await screenshot(page, 'webhooks');
    await open();
    assert.equal((await page.content()).includes(secret.slice(6)), false, 'shown once');
  });

  test('events reach the receiver, verified; the attempts show time, event, answer and latency', async () => {
    const { page } = b;
    const sent = await api('POST', '/v1/otp/send', { phone: '+61412347001', channel: 'sms' });
    assert.equal(sent.status, 201);
    await eventually('the created event', () => receiver.received.length === 1);
    const payload = new Webhook(secret).verify(
      receiver.received[0]?.body ?? '',
      receiver.received[0]?.headers ?? {},
    );
    assert.equal((payload as { data: { id: string } }).data.id, sent.body.id);
    // The receiver can hold the event before the attempt is recorded; the page is reloaded until it lists it.
    // allTextContents does not wait for a row to appear (a static page would hold textContent for its timeout).
    const row = await eventually('the attempt listed', async () => {
      await open();
      const rows = await page.locator('table.attempts tbody tr').allTextContents();
      return rows.find((text) => text.includes('verification.created'));
    });
    assert.match(row, /204/);
    assert.match(row, /\d+ ms/);
    assert.match(row, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  });

  test('send test event, and resend an attempt with the same webhook-id', async () => {
    const { page } = b;
    await open();
    await andWait(page, () => page.getByRole('button', { name: /Send test event/ }).click());
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /Test event msg_\w+ queued/);
    await eventually('the test event', () => receiver.received.some((r) => r.json.type === 'webhook.test'));
    const first = receiver.received[0];
    assert.ok(first);
    const before = receiver.received.length;
    await open();
    const created = page.locator('table.attempts tbody tr', { hasText: 'verification.created' }).first();
    await andWait(page, () => created.getByRole('button', { name: /Resend/ }).click());
    await eventually('the resent event', () => receiver.received.length > before);
    const again = receiver.received.at(-1);
    assert.equal(again?.headers['webhook-id'], first.headers['webhook-id']);
    new Webhook(secret).verify(again?.body ?? '', again?.headers ?? {});
  });

  test('rotate shows a new secret once, and both sign; remove takes the endpoint away', async () => {
    const { page } = b;
    await open();
    await andWait(page, () => page.getByRole('button', { name: /Rotate the signing secret/ }).click());
    const rotated = await page.locator('#new-webhook-secret').inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    const before = receiver.received.length;
    await andWait(page, () => page.getByRole('button', { name: /Send test event/ }).click());
    await eventually('an event after rotation', () => receiver.received.length > before);
    const last = receiver.received.at(-1);
    assert.ok(last);
    new Webhook(secret).verify(last.body, last.headers);
    new Webhook(rotated).verify(last.body, last.headers);

    await open();
    await andWait(page, () => page.getByRole('button', { name: /Remove endpoint/ }).click());
    assert.match((await page.locator('#endpoints').textContent()) ?? '', /No endpoint yet/);
  });
});
