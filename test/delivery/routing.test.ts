// Sends routed to carrier accounts, end to end: POST /v1/otp/send for a workspace whose number is tied to an
// account whose --base-url points at a local fake of that carrier's API (test/fakes). What the carrier
// receives and what the verification then says are both checked; the code in the message is proven real by
// checking it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { findJob } from '../../src/delivery/jobs.js';
import { startFakeTelnyx } from '../fakes/telnyx.js';
import { startTwilioFake } from '../fakes/twilio.js';
import { startFakeVonage } from '../fakes/vonage.js';
import type { Verification } from '../helpers/api-types.js';
import {
  type Client,
  client,
  codeFor,
  createTestApp,
  json,
  TEST_PUBLIC_URL,
  type TestApp,
} from '../helpers/app.js';
import { TELNYX, TWILIO, VONAGE, VONAGE_PUBLIC_KEY } from '../helpers/carrier-fixtures.js';

const SENDER = '+61491570156';

describe('sends routed to carrier accounts', () => {
  let t: TestApp;

  /** A workspace whose one number is tied to a new account of this type: its API client and account id. */
  async function workspaceOn(
    type: string,
    credentials: Record<string, unknown>,
    baseUrl?: string,
  ): Promise<{ api: Client; accountId: string }> {
    const s = t.services;
    const ws = await s.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR);
    const account = await s.carriers.addAccount({ workspaceId: ws.id, type, credentials, baseUrl }, OPERATOR);
    await s.workspaces.addNumber({ workspaceId: ws.id, number: SENDER, carrierId: account.id }, OPERATOR);
    const key = await s.keys.createKey({ workspaceId: ws.id, name: 'backend' }, OPERATOR);
    return { api: client(t.app, key.key), accountId: account.id };
  }

  async function send(api: Client, phone: string, channel: 'sms' | 'voice'): Promise<Verification> {
    const res = await api.send({ phone, channel });
    assert.equal(res.statusCode, 201, res.body);
    return json<Verification>(res);
  }

  async function checkCode(api: Client, id: string, code: string): Promise<void> {
    const res = await api.check({ verification_id: id, code });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(json(res).verified, true, res.body);
  }

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  describe('Twilio SMS', () => {
    let fake: Awaited<ReturnType<typeof startTwilioFake>>;
    let api: Client;
    let accountId = '';

    before(async () => {
      fake = await startTwilioFake(TWILIO);
      ({ api, accountId } = await workspaceOn('twilio', TWILIO, fake.baseUrl));
    });
    after(() => fake.close());

    test('one Messages request, the code at the end of Body, the account callback; pending with its sid', async () => {
      fake.requests.length = 0;
      const v = await send(api, '+61412345001', 'sms');
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0];
      assert.ok(request);
      assert.equal(request.method, 'POST');
      assert.equal(request.path, `/2010-04-01/Accounts/${TWILIO.accountSid}/Messages.json`);
      assert.equal(request.form.get('To'), '+61412345001');
      assert.equal(request.form.get('From'), SENDER);
      assert.equal(request.form.get('StatusCallback'), `${TEST_PUBLIC_URL}/webhooks/twilio/${accountId}`);
      const code = /(\d{6})$/.exec(request.form.get('Body') ?? '')?.[1];
      assert.ok(code, request.form.get('Body') ?? '');

      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, true);
      assert.match(v.delivery.provider_id ?? '', /^SM[0-9a-f]{32}$/);
      const row = await t.store.db
        .selectFrom('verifications')
        .select(['delivery_provider', 'provider_id'])
        .where('id', '=', v.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { delivery_provider: 'twilio', provider_id: v.delivery.provider_id });
      // Nothing went to the development outbox: the carrier had the message.
      await assert.rejects(codeFor(t.services, '+61412345001'), /no message/);
      await checkCode(api, v.id, code);
    });

    test('a 21211 rejection: undelivered, destination_rejected, Twilio code in the message', async () => {
      fake.requests.length = 0;
      fake.reply({ kind: 'error', code: 21211 });
      const v = await send(api, '+61412345002', 'sms');
      assert.equal(fake.requests.length, 1);
      assert.equal(v.status, 'undelivered');
      assert.equal(v.delivery.ok, false);
      assert.equal(v.delivery.error_code, 'destination_rejected');
      assert.match(v.delivery.error_message ?? '', /21211/);
    });

    test('a 503: still pending, not handed over yet, a retry scheduled (test/delivery/durable-delivery)', async () => {
      fake.requests.length = 0;
      fake.reply({ kind: 'server_error', status: 503 });
      const v = await send(api, '+61412345003', 'sms');
      assert.equal(fake.requests.length, 1);
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, false);
      assert.equal(v.delivery.provider_id, null);
      assert.equal(v.delivery.error_code, null);
      assert.match(
        v.delivery.error_message ?? '',
        /^Not handed over yet: attempt 1 failed \(the twilio provider/,
      );
      assert.equal(v.delivery.error_message?.includes(TWILIO.authToken), false);
      const job = await findJob(t.store.db, v.id);
      assert.equal(job?.attempts, 1);
    });
  });

  describe('Telnyx SMS', () => {
    let fake: Awaited<ReturnType<typeof startFakeTelnyx>>;
    let api: Client;
    let accountId = '';

    before(async () => {
      fake = await startFakeTelnyx(TELNYX.apiKey);
      ({ api, accountId } = await workspaceOn('telnyx', TELNYX, fake.baseUrl));
    });
    after(() => fake.close());

    test('one /v2/messages request with the code at the end of text and the account webhook_url', async () => {
      fake.requests.length = 0;
      const v = await send(api, '+61412345011', 'sms');
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0];
      assert.ok(request);
      assert.equal(request.path, '/v2/messages');
      const body = request.json as Record<string, unknown>;
      assert.equal(body.to, '+61412345011');
      assert.equal(body.from, SENDER);
      assert.equal(body.webhook_url, `${TEST_PUBLIC_URL}/webhooks/telnyx/${accountId}`);
      const code = /(\d{6})$/.exec(String(body.text))?.[1];
      assert.ok(code, String(body.text));
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, true);
      assert.equal(v.delivery.provider_id, fake.issuedIds.at(-1));
      await checkCode(api, v.id, code);
    });

    test("an invalid 'to' (40310): undelivered, destination_rejected", async () => {
      fake.answerWith({ kind: 'error', name: 'invalid_to' });
      try {
        const v = await send(api, '+61412345012', 'sms');
        assert.equal(v.status, 'undelivered');
        assert.equal(v.delivery.error_code, 'destination_rejected');
        assert.match(v.delivery.error_message ?? '', /40310/);
      } finally {
        fake.answerWith({ kind: 'success' });
      }
    });
  });

  describe('Vonage voice', () => {
    let fake: Awaited<ReturnType<typeof startFakeVonage>>;
    let api: Client;
    let accountId = '';

    before(async () => {
      fake = await startFakeVonage({ applicationId: VONAGE.applicationId, publicKey: VONAGE_PUBLIC_KEY });
      ({ api, accountId } = await workspaceOn('vonage', VONAGE, fake.url));
    });
    after(() => fake.close());

    test('one /v1/calls request reading the code, the account event_url; pending with the call uuid', async () => {
      fake.requests.length = 0;
      const v = await send(api, '+61412345021', 'voice');
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0];
      assert.ok(request);
      assert.equal(request.path, '/v1/calls');
      const body = request.json as {
        to: { number: string }[];
        from: { number: string };
        ncco: { action: string; text: string }[];
        event_url: string[];
      };
      assert.deepEqual(body.to, [{ type: 'phone', number: '61412345021' }]);
      assert.equal(body.from.number, SENDER.slice(1));
      assert.deepEqual(body.event_url, [`${TEST_PUBLIC_URL}/webhooks/vonage/${accountId}`]);
      const spoken = body.ncco.map((a) => a.text).join(' ');
      const code = /code is:\s*([\d, ]+)\./.exec(spoken)?.[1]?.replace(/\D/g, '');
      assert.ok(code && code.length === 6, spoken);
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, true);
      assert.match(v.delivery.provider_id ?? '', /^aaaaaaaa-bbbb-cccc-dddd-\d{12}$/);
      await checkCode(api, v.id, code);
    });

    test('a 503 from the Voice API: still pending, a retry scheduled', async () => {
      fake.requests.length = 0;
      fake.queue({ kind: 'error', status: 503, body: { title: 'Service Unavailable' } });
      const v = await send(api, '+61412345022', 'voice');
      assert.equal(fake.requests.length, 1);
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.error_code, null);
      assert.match(
        v.delivery.error_message ?? '',
        /Not handed over yet: attempt 1 failed \(the vonage provider/,
      );
      assert.equal((await findJob(t.store.db, v.id))?.attempts, 1);
    });
  });

  test('a number without a carrier account still sends through the development provider', async () => {
    const ws = await t.services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR);
    await t.services.workspaces.addNumber({ workspaceId: ws.id, number: SENDER }, OPERATOR);
    const api = client(
      t.app,
      (await t.services.keys.createKey({ workspaceId: ws.id, name: 'k' }, OPERATOR)).key,
    );
    const v = await send(api, '+61412345041', 'sms');
    assert.equal(v.delivery.ok, true);
    await checkCode(api, v.id, await codeFor(t.services, '+61412345041'));
  });
});
