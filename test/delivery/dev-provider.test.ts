// operator-interface "The development delivery provider": …0999 rejected at hand-over, …0998 handed over then
// reported failed within two seconds, any other number delivered; messages kept in the outbox (`outbox` command:
// newest first, with --limit). service-spec section 3 (pending -> undelivered, delivery carries the reason) and
// api-decisions "Delivery" / "Check against a terminal status other than verified".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DELIVERY_ERROR_CODES } from '../../src/delivery/error-codes.js';
import { listOutbox, OUTBOX_MAX_LIMIT } from '../../src/delivery/outbox.js';
import { AppError } from '../../src/errors.js';
import type { Delivery } from '../helpers/api-types.js';
import {
  type Client,
  client,
  codeFor,
  createTestApp,
  json,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { acmeApp, refusedCheck } from '../helpers/verification.js';

const SENDER = '+61491570156';

describe('development provider (fake clock)', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  const outboxTo = (to: string) => listOutbox(t.store.db, { to, limit: 100 });

  test('any other number: delivered (201 pending, delivery.ok true, message in the outbox)', async () => {
    const phone = '+61412360001';
    const res = await api.send({ phone });
    assert.equal(res.statusCode, 201);
    const v = json(res);
    assert.equal(v.status, 'pending');
    const delivery = v.delivery as Delivery;
    assert.equal(delivery.ok, true);
    assert.equal(delivery.error_code, null);
    assert.equal(delivery.error_message, null);
    const messages = await outboxTo(phone);
    assert.equal(messages.length, 1);
    assert.equal(messages[0]?.verification_id, v.id);
    assert.equal(delivery.provider_id, messages[0]?.id, 'provider_id identifies the outbox message');
  });

  for (const channel of ['voice', 'sms'] as const) {
    test(`…0999 (${channel}): hand-over rejected: 201 undelivered, delivery.ok false, error_code and error_message set, nothing in the outbox`, async () => {
      const phone = channel === 'voice' ? '+61412360999' : '+61412370999';
      const res = await api.send({ phone, channel });
      assert.equal(res.statusCode, 201);
      const v = json(res);
      assert.equal(v.status, 'undelivered');
      assert.equal(v.channel, channel);
      const delivery = v.delivery as Delivery;
      assert.equal(delivery.ok, false);
      assert.equal(delivery.channel, channel);
      assert.equal(typeof delivery.error_code, 'string');
      assert.ok(
        delivery.error_code && delivery.error_code in DELIVERY_ERROR_CODES,
        'a documented error_code',
      );
      assert.equal(typeof delivery.error_message, 'string');
      assert.ok(String(delivery.error_message).length > 0);
      assert.deepEqual(await outboxTo(phone), [], 'nothing was delivered');

      // The read reports the same: undelivered at once, with the reason.
      const read = json(await api.get(String(v.id)));
      assert.equal(read.status, 'undelivered');
      assert.equal((read.delivery as Delivery).error_code, delivery.error_code);
    });
  }

  test('a check against an undelivered verification: 200, verified false, status undelivered, attempts_remaining 0', async () => {
    const phone = '+61412380999';
    const id = String(json(await api.send({ phone })).id);
    const res = await api.check({ verification_id: id, code: '123456' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), refusedCheck(id, 'undelivered', 0));
    // By phone too, and nothing is spent.
    const byPhone = json(await api.check({ phone, code: '654321' }));
    assert.equal(byPhone.status, 'undelivered');
    assert.equal(byPhone.verified, false);
    assert.equal(byPhone.attempts_remaining, 0);
    assert.equal(json(await api.get(id)).attempts, 0);
  });

  test('…0998: handed over (201 pending, delivery.ok true), then the simulated report makes it undelivered', async () => {
    const phone = '+61412360998';
    const res = await api.send({ phone });
    assert.equal(res.statusCode, 201);
    const v = json(res);
    const id = String(v.id);
    assert.equal(v.status, 'pending');
    assert.equal((v.delivery as Delivery).ok, true);
    assert.equal((v.delivery as Delivery).error_code, null);
    assert.equal((await outboxTo(phone)).length, 1, 'the message was handed over');

    // Not yet due: nothing changes.
    clock.advance(999);
    await t.services.devProvider.applyDueReports();
    assert.equal(json(await api.get(id)).status, 'pending');

    // Within two seconds the "carrier" reports the delivery failed.
    clock.advance(1);
    await t.services.devProvider.applyDueReports();
    const read = json(await api.get(id));
    assert.equal(read.status, 'undelivered');
    const delivery = read.delivery as Delivery;
    assert.ok(delivery.error_code && delivery.error_code in DELIVERY_ERROR_CODES, 'a documented error_code');
    assert.equal(typeof delivery.error_message, 'string');

    // A check now spends nothing and accepts nothing, not even the delivered code.
    const code = await codeFor(t.services, phone);
    assert.deepEqual(
      json(await api.check({ verification_id: id, code })),
      refusedCheck(id, 'undelivered', 0),
    );
    // A report is applied once; applying again changes nothing.
    assert.equal(await t.services.devProvider.applyDueReports(), 0);
  });

  test('…0998: a report arriving after the code was verified leaves it verified', async () => {
    const phone = '+61412370998';
    const id = String(json(await api.send({ phone })).id);
    const code = await codeFor(t.services, phone);
    assert.equal(json(await api.check({ verification_id: id, code })).verified, true);
    clock.advance(2000);
    await t.services.devProvider.applyDueReports();
    const read = json(await api.get(id));
    assert.equal(read.status, 'verified');
  });

  test('the outbox keeps the SMS text with from, to, channel and verification_id', async () => {
    const phone = '+61412360002';
    const v = json(await api.send({ phone, channel: 'sms', brand_name: 'Widgets' }));
    const [message] = await outboxTo(phone);
    assert.ok(message);
    assert.equal(message.verification_id, v.id);
    assert.equal(message.channel, 'sms');
    assert.equal(message.to, phone);
    assert.equal(message.from, SENDER);
    assert.equal(message.from, (v.delivery as Delivery).from_number);
    assert.match(message.body, /Widgets/);
    assert.match(message.body, /\d{6}\s*$/, 'the SMS ends in the code');
    assert.match(message.id, /^msg_/);
    assert.equal(message.created_at, new Date(clock.now()).toISOString());
  });

  test('the outbox keeps the voice script (the words read) with from, to, channel and verification_id', async () => {
    const phone = '+61412360003';
    const v = json(await api.send({ phone, brand_name: 'Widgets' }));
    const [message] = await outboxTo(phone);
    assert.ok(message);
    assert.equal(message.verification_id, v.id);
    assert.equal(message.channel, 'voice');
    assert.equal(message.to, phone);
    assert.equal(message.from, SENDER);
    assert.match(message.body, /Widgets/);
    const code = await codeFor(t.services, phone);
    const spoken = [...code].join(', ');
    assert.equal(message.body.split(spoken).length - 1, 2, 'the code is read digit by digit, twice');
    assert.match(message.body, /\[hangs up\]\s*$/, 'then the call hangs up');
    // The SSML a text-to-speech engine gets is kept beside it.
    const row = await t.store.db
      .selectFrom('outbox_messages')
      .select('markup')
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    assert.match(String(row.markup), /^<speak xml:lang="en-AU">/);
  });

  test('the voice script speaks the destination country’s locale', async () => {
    const ws = await seedWorkspace(t.services, {
      name: 'Global',
      numbers: [{ number: '+61491570156' }, { number: '+64211234567' }, { number: '+442079460000' }],
    });
    const global = client(t.app, ws.key);
    for (const [phone, locale] of [
      ['+61412360004', 'en-AU'],
      ['+64211230004', 'en-NZ'],
      ['+442079460004', 'en-GB'],
      ['+12015550104', 'en-US'],
      ['+14165550104', 'en-CA'],
    ] as const) {
      assert.equal((await global.send({ phone })).statusCode, 201, phone);
      const [message] = await outboxTo(phone);
      assert.ok(message, phone);
      const row = await t.store.db
        .selectFrom('outbox_messages')
        .select('markup')
        .where('id', '=', message.id)
        .executeTakeFirstOrThrow();
      assert.match(String(row.markup), new RegExp(`^<speak xml:lang="${locale}">`), phone);
    }
  });

  test('listOutbox: newest first, limited by limit, filtered by to (in any format)', async () => {
    const phone = '+61412360005';
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      ids.push(String(json(await api.send({ phone, channel: i % 2 ? 'sms' : 'voice' })).id));
    }
    const all = await listOutbox(t.store.db, { to: phone });
    assert.deepEqual(
      all.map((m) => m.verification_id),
      [...ids].reverse(),
      'newest first',
    );
    const two = await listOutbox(t.store.db, { to: phone, limit: 2 });
    assert.deepEqual(
      two.map((m) => m.verification_id),
      [ids[3], ids[2]],
    );
    const national = await listOutbox(t.store.db, { to: '+61 412 360 005', limit: 1 });
    assert.equal(national[0]?.verification_id, ids[3]);
    // Without `to`: every number, newest first.
    const [newest] = await listOutbox(t.store.db, { limit: 1 });
    assert.equal(newest?.verification_id, ids[3]);
    const many = await listOutbox(t.store.db, { limit: 50 });
    const times = many.map((m) => Date.parse(m.created_at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'sorted newest first',
    );
    assert.ok(
      many.some((m) => m.to !== phone),
      'other numbers are listed without `to`',
    );
  });

  test('listOutbox: a limit outside 1..1000 is refused', async () => {
    for (const limit of [0, -1, 1.5, OUTBOX_MAX_LIMIT + 1]) {
      await assert.rejects(listOutbox(t.store.db, { limit }), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'invalid_request');
        return true;
      });
    }
  });

  test('listOutbox: messages sent in the same millisecond still come newest first', async () => {
    const phone = '+61412360006';
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(String(json(await api.send({ phone })).id));
    const all = await listOutbox(t.store.db, { to: phone });
    assert.deepEqual(
      all.map((m) => m.verification_id),
      [...ids].reverse(),
    );
  });
});

describe('development provider (real clock)', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    t = await createTestApp();
    api = client(t.app, (await seedWorkspace(t.services, { name: 'Acme' })).key);
  });
  after(() => t.close());

  test('…0998: the carrier’s failure report arrives by itself within about two seconds: undelivered, error_code set', async () => {
    const phone = '+61412390998';
    const sent = json(await api.send({ phone }));
    assert.equal(sent.status, 'pending');
    assert.equal((sent.delivery as Delivery).ok, true);
    const id = String(sent.id);

    // The provider's own timer applies the report; its two seconds are tested above with the fake clock. Ten
    // times that here: a timer not armed, or armed far too long, fails; a slow machine does not.
    const read = await eventually(
      'the failure report',
      async () => {
        const now = json(await api.get(id));
        return now.status !== 'pending' && now;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    assert.equal(read.status, 'undelivered');
    const delivery = read.delivery as Delivery;
    assert.equal(typeof delivery.error_code, 'string');
    assert.ok(delivery.error_code && delivery.error_code in DELIVERY_ERROR_CODES);
    assert.equal(typeof delivery.error_message, 'string');
  });
});
