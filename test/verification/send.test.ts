// Spec section 4, POST /v1/otp/send: fields, defaults, bounds and rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { listOutbox } from '../../src/delivery/outbox.js';
import { deriveKey } from '../../src/secret.js';
import { hashCode } from '../../src/verification/code.js';
import type { Verification } from '../helpers/api-types.js';
import {
  type Client,
  client,
  codeFor,
  createTestApp,
  json,
  seedWorkspace,
  TEST_SECRET,
  type TestApp,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { acmeApp, assertProblem, refusedCheck, sendOk } from '../helpers/verification.js';

async function lastMessage(t: TestApp, phone: string) {
  const [message] = await listOutbox(t.store.db, { to: phone, limit: 1 });
  assert.ok(message, `a message to ${phone}`);
  return message;
}

describe('POST /v1/otp/send', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    api = client(t.app, ws.key);
  });
  after(() => t.close());

  test('a valid request answers 201 with a pending verification and every documented default', async () => {
    const res = await api.send({ phone: '+61412345001' });
    assert.equal(res.statusCode, 201);
    const v = json(res);
    assert.match(String(v.id), /^ver_[0-9A-Za-z]{24}$/);
    assert.equal(v.status, 'pending');
    assert.equal(v.channel, 'voice');
    assert.equal(v.phone, '+61412345001');
    assert.equal(v.attempts, 0);
    assert.equal(v.max_attempts, 5);
    assert.equal(v.verified_at, null);
    assert.deepEqual(v.metadata, {});
    const created = Date.parse(String(v.created_at));
    assert.equal(Date.parse(String(v.expires_at)) - created, 300_000);
    assert.match(String(v.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(v.delivery, {
      ok: true,
      channel: 'voice',
      provider_id: (v.delivery as { provider_id: string }).provider_id,
      from_number: '+61491570156',
      error_code: null,
      error_message: null,
    });
    assert.equal('code' in v, false);
    assert.equal(res.headers['x-request-id']?.toString().startsWith('req_'), true);
    assert.equal((await codeFor(t.services, '+61412345001')).length, 6);
  });

  test('a national number takes the country of the workspace number by default', async () => {
    const res = await api.send({ phone: '0412 345 002' });
    assert.equal(res.statusCode, 201);
    assert.equal(json(res).phone, '+61412345002');
  });
});

describe('spec §4 send field table', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    // An AU mobile first (the default country), then an NZ mobile (a sender for NZ destinations). The clock
    // moves between the two so "first" is well defined.
    const ws = await seedWorkspace(t.services, { name: 'Acme', numbers: [{ number: '+61491570156' }] });
    clock.advance(1);
    await t.services.workspaces.addNumber({ workspaceId: ws.workspaceId, number: '+64211234567' }, OPERATOR);
    api = client(t.app, ws.key);
  });
  after(() => t.close());

  /** A send to `phone` with each of `values` as `field`: 400 invalid_request naming the field. */
  async function assertFieldRejected(field: string, values: unknown[], phone: string) {
    for (const value of values) {
      assertProblem(
        await api.send({ phone, [field]: value }),
        400,
        'invalid_request',
        field,
        JSON.stringify(value),
      );
    }
  }

  describe('row `phone` (required; E.164 or national with country)', () => {
    test('phone missing: 400 invalid_request naming phone', async () => {
      assertProblem(await api.send({}), 400, 'invalid_request', 'phone');
    });

    test('E.164 phone is taken as it is and returned in E.164', async () => {
      const v = await sendOk(api, { phone: '+61412345003' });
      assert.equal(v.phone, '+61412345003');
    });

    test('a phone that is not a valid number: 400 invalid_phone', async () => {
      assertProblem(await api.send({ phone: '+6141234' }), 400, 'invalid_phone');
      assertProblem(await api.send({ phone: 'not a number' }), 400, 'invalid_phone');
    });

    test('a number outside AU, US, CA, GB, NZ: 400 unsupported_country', async () => {
      assertProblem(await api.send({ phone: '+33612345678' }), 400, 'unsupported_country');
    });
  });

  describe('row `country` (default: the workspace number country; ignored for E.164)', () => {
    test('national number with country NZ is normalised to E.164 of NZ', async () => {
      const v = await sendOk(api, { phone: '021 123 4568', country: 'NZ' });
      assert.equal(v.phone, '+64211234568');
    });

    test('national number with country GB, US and CA', async () => {
      assert.equal((await sendOk(api, { phone: '07400 123456', country: 'GB' })).phone, '+447400123456');
      assert.equal((await sendOk(api, { phone: '(201) 555-0123', country: 'US' })).phone, '+12015550123');
      assert.equal((await sendOk(api, { phone: '(416) 555-0123', country: 'CA' })).phone, '+14165550123');
    });

    test('national number without country takes the workspace number country (AU)', async () => {
      const v = await sendOk(api, { phone: '0412 345 004' });
      assert.equal(v.phone, '+61412345004');
    });

    test('country is ignored when phone is E.164', async () => {
      const v = await sendOk(api, { phone: '+447400123457', country: 'AU' });
      assert.equal(v.phone, '+447400123457');
    });

    test('a country outside the list: 400 invalid_request naming country', async () => {
      assertProblem(
        await api.send({ phone: '0612345678', country: 'FR' }),
        400,
        'invalid_request',
        'country',
      );
    });

    test('the sender is a workspace number of the destination country where there is one', async () => {
      const nz = await sendOk(api, { phone: '+64211234569' });
      assert.equal(nz.delivery.from_number, '+64211234567');
      const au = await sendOk(api, { phone: '+61412345005' });
      assert.equal(au.delivery.from_number, '+61491570156');
    });
  });

  describe('row `channel` (default voice; voice or sms)', () => {
    test('default is voice: the code is read out twice by a call', async () => {
      const v = await sendOk(api, { phone: '+61412345006' });
      assert.equal(v.channel, 'voice');
      assert.equal(v.delivery.channel, 'voice');
      const message = await lastMessage(t, '+61412345006');
      assert.equal(message.channel, 'voice');
      const code = await codeFor(t.services, '+61412345006');
      const spoken = [...code].join(', ');
      assert.equal(message.body.split(spoken).length - 1, 2, message.body);
    });

    test('channel sms: 201, channel sms, sent from the mobile number, the text ends in the code', async () => {
      const v = await sendOk(api, { phone: '+61412345007', channel: 'sms' });
      assert.equal(v.status, 'pending');
      assert.equal(v.channel, 'sms');
      assert.equal(v.delivery.channel, 'sms');
      assert.equal(v.delivery.ok, true);
      assert.equal(v.delivery.from_number, '+61491570156');
      const message = await lastMessage(t, '+61412345007');
      assert.equal(message.channel, 'sms');
      assert.equal(message.from, '+61491570156');
      assert.equal(message.verification_id, v.id);
      const code = await codeFor(t.services, '+61412345007');
      assert.match(message.body, new RegExp(`${code}\\s*$`));
      assert.ok(message.body.includes('Acme'), message.body);
    });

    test('channel sms: the texted code verifies', async () => {
      const v = await sendOk(api, { phone: '+61412345008', channel: 'sms' });
      const code = await codeFor(t.services, '+61412345008');
      const res = await api.check({ verification_id: v.id, code });
      assert.equal(res.statusCode, 200);
      assert.equal(json(res).verified, true);
    });

    test('an unknown channel: 400 invalid_request naming channel', async () => {
      assertProblem(
        await api.send({ phone: '+61412345009', channel: 'email' }),
        400,
        'invalid_request',
        'channel',
      );
    });
  });

  describe('row `brand_name` (default workspace name; at most 60; printable, one line, no URLs)', () => {
    test('default brand is the workspace name, in the message', async () => {
      await sendOk(api, { phone: '+61412345010', channel: 'sms' });
      assert.match((await lastMessage(t, '+61412345010')).body, /^Acme\b/);
    });

    test('a given brand_name is spoken/written in the message', async () => {
      await sendOk(api, { phone: '+61412345011', brand_name: 'Café Zürich & Co.' });
      assert.ok((await lastMessage(t, '+61412345011')).body.includes('Café Zürich & Co.'));
      await sendOk(api, { phone: '+61412345012', channel: 'sms', brand_name: 'St. Kilda Bank' });
      assert.ok((await lastMessage(t, '+61412345012')).body.includes('St. Kilda Bank'));
    });

    test('exactly 60 characters is accepted (characters, not UTF-16 units); 61 is 400', async () => {
      await sendOk(api, { phone: '+61412345013', brand_name: 'B'.repeat(60) });
      await sendOk(api, { phone: '+61412345014', brand_name: '😀'.repeat(60) });
      assertProblem(
        await api.send({ phone: '+61412345015', brand_name: 'B'.repeat(61) }),
        400,
        'invalid_request',
        'brand_name',
      );
      assertProblem(
        await api.send({ phone: '+61412345015', brand_name: '😀'.repeat(61) }),
        400,
        'invalid_request',
        'brand_name',
      );
    });

    test('empty or blank brand_name: 400', async () => {
      await assertFieldRejected('brand_name', ['', '   '], '+61412345016');
    });

    test('line breaks and unprintable characters: 400', async () => {
      await assertFieldRejected(
        'brand_name',
        [
          'Acme\nBank',
          'Acme\r\nBank',
          'Acme\u2028Bank',
          'Acme\u2029Bank',
          'Acme\tBank',
          'Acme\u0007',
          'Acme\u200bBank',
          'Acme\u202eBank',
        ],
        '+61412345016',
      );
    });

    test('URLs, domains and e-mail addresses: 400', async () => {
      await assertFieldRejected(
        'brand_name',
        [
          'https://acme.example',
          'http://x',
          'Visit acme.com',
          'www.acme.com.au',
          'acme.io',
          'ACME.COM',
          'bit.ly/abc',
          'help@acme.com',
          'verify-acme.app',
          'acme.xyz',
          'Acme.online',
        ],
        '+61412345016',
      );
      // Nothing was sent for any rejected brand.
      assert.deepEqual(await listOutbox(t.store.db, { to: '+61412345016', limit: 5 }), []);
    });
  });

  describe('row `code_length` (4 to 8, default 6)', () => {
    test('default: 6 digits', async () => {
      await sendOk(api, { phone: '+61412345017' });
      assert.match(await codeFor(t.services, '+61412345017'), /^\d{6}$/);
    });

    for (const length of [4, 5, 6, 7, 8]) {
      test(`code_length ${length}: the delivered code has ${length} digits and verifies`, async () => {
        const phone = `+614123451${length}0`;
        const v = await sendOk(api, { phone, code_length: length, channel: 'sms' });
        const code = await codeFor(t.services, phone);
        assert.match(code, new RegExp(`^\\d{${length}}$`));
        const res = await api.check({ verification_id: v.id, code });
        assert.equal(json(res).verified, true);
      });
    }

    test('code_length 3, 9, "6" and 6.5: 400 naming code_length', async () => {
      await assertFieldRejected('code_length', [3, 9, 0, -6, '6', 6.5, null], '+61412345018');
    });
  });

  describe('row `ttl_seconds` (60 to 900, default 300)', () => {
    test('default 300: expires_at is created_at + 300 s', async () => {
      const v = await sendOk(api, { phone: '+61412345019' });
      assert.equal(Date.parse(v.expires_at) - Date.parse(v.created_at), 300_000);
      assert.equal(v.created_at, new Date(clock.now()).toISOString());
    });

    test('ttl_seconds 60 and 900 are taken as given', async () => {
      const a = await sendOk(api, { phone: '+61412345020', ttl_seconds: 60 });
      assert.equal(Date.parse(a.expires_at) - Date.parse(a.created_at), 60_000);
      const b = await sendOk(api, { phone: '+61412345021', ttl_seconds: 900 });
      assert.equal(Date.parse(b.expires_at) - Date.parse(b.created_at), 900_000);
    });

    test('ttl_seconds 59, 901, "300" and 60.5: 400 naming ttl_seconds', async () => {
      await assertFieldRejected('ttl_seconds', [59, 901, '300', 60.5], '+61412345022');
    });
  });

  describe('row `max_attempts` (1 to 10, default 5)', () => {
    test('default 5', async () => {
      assert.equal((await sendOk(api, { phone: '+61412345023' })).max_attempts, 5);
    });

    test('max_attempts 1 and 10 are taken as given', async () => {
      assert.equal((await sendOk(api, { phone: '+61412345024', max_attempts: 1 })).max_attempts, 1);
      assert.equal((await sendOk(api, { phone: '+61412345025', max_attempts: 10 })).max_attempts, 10);
    });

    test('max_attempts 0, 11, "5" and 2.5: 400 naming max_attempts', async () => {
      await assertFieldRejected('max_attempts', [0, 11, '5', 2.5], '+61412345026');
    });
  });

  describe('row `metadata` (object, default {}, echoed on every read, at most 4 KiB)', () => {
    test('metadata is echoed by send, read, check-by-read and cancel', async () => {
      const metadata = { user_id: 'u_42', nested: { list: [1, 'two', null, true] }, emoji: '😀' };
      const v = await sendOk(api, { phone: '+61412345027', metadata });
      assert.deepEqual(v.metadata, metadata);
      assert.deepEqual(json(await api.get(v.id)).metadata, metadata);
      await api.check({ verification_id: v.id, code: '0' });
      assert.deepEqual(json(await api.get(v.id)).metadata, metadata);
      assert.deepEqual(json(await api.cancel(v.id)).metadata, metadata);
      assert.deepEqual(json(await api.get(v.id)).metadata, metadata);
    });

    test('exactly 4096 bytes serialised is accepted; 4097 is 400 naming metadata', async () => {
      // '{"k":""}' is 8 bytes.
      const fits = { k: 'x'.repeat(4096 - 8) };
      assert.equal(Buffer.byteLength(JSON.stringify(fits)), 4096);
      assert.deepEqual((await sendOk(api, { phone: '+61412345028', metadata: fits })).metadata, fits);
      const over = { k: 'x'.repeat(4097 - 8) };
      assertProblem(
        await api.send({ phone: '+61412345029', metadata: over }),
        400,
        'invalid_request',
        'metadata',
      );
      // Bytes, not characters: 2048 two-byte characters are over the limit.
      const multibyte = { k: 'é'.repeat(2045) };
      assert.ok(
        JSON.stringify(multibyte).length <= 4096 && Buffer.byteLength(JSON.stringify(multibyte)) > 4096,
      );
      assertProblem(
        await api.send({ phone: '+61412345029', metadata: multibyte }),
        400,
        'invalid_request',
        'metadata',
      );
    });

    test('metadata that is not an object: 400 naming metadata', async () => {
      for (const metadata of [[1, 2], 'text', 42, null]) {
        assertProblem(
          await api.send({ phone: '+61412345029', metadata }),
          400,
          'invalid_request',
          'metadata',
          JSON.stringify(metadata),
        );
      }
    });
  });

  test('an unknown field: 400 invalid_request naming it', async () => {
    assertProblem(
      await api.send({ phone: '+61412345030', codeLength: 6 }),
      400,
      'invalid_request',
      'codeLength',
    );
  });

  test('the plaintext code is not stored: only its keyed hash, bound to the id', async () => {
    const v = await sendOk(api, { phone: '+61412345031' });
    const code = await codeFor(t.services, '+61412345031');
    const row = await t.store.db
      .selectFrom('verifications')
      .selectAll()
      .where('id', '=', v.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.code_hash, hashCode(deriveKey(TEST_SECRET, 'code-hash'), v.id, code));
    for (const value of Object.values(row)) assert.notEqual(String(value), code);
  });
});

describe('spec §4 send rule 1: a new send supersedes the pending verification of the number', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  test('the old verification becomes canceled at once and its id is dead', async () => {
    const phone = '+61412345040';
    const old = await sendOk(api, { phone });
    const oldCode = await codeFor(t.services, phone);
    clock.advance(1000);
    const fresh = await sendOk(api, { phone });
    const freshCode = await codeFor(t.services, phone);

    const oldRead = json<Verification>(await api.get(old.id));
    assert.equal(oldRead.status, 'canceled');
    assert.equal(oldRead.attempts, 0);

    // Even the old verification's own (correct) code no longer verifies anything.
    const res = await api.check({ verification_id: old.id, code: oldCode });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), refusedCheck(old.id, 'canceled', 0));
    assert.equal(json<Verification>(await api.get(old.id)).attempts, 0);

    assert.equal(json<Verification>(await api.get(fresh.id)).status, 'pending');
    const ok = await api.check({ verification_id: fresh.id, code: freshCode });
    assert.equal(json(ok).verified, true);
  });

  test('supersede only touches the same number in the same workspace', async () => {
    const a = await sendOk(api, { phone: '+61412345041' });
    await sendOk(api, { phone: '+61412345042' });
    assert.equal(json<Verification>(await api.get(a.id)).status, 'pending');

    const other = await seedWorkspace(t.services, { name: 'Other' });
    await sendOk(client(t.app, other.key), { phone: '+61412345041' });
    assert.equal(json<Verification>(await api.get(a.id)).status, 'pending');
  });

  test('a verified verification is not touched by a later send', async () => {
    const phone = '+61412345043';
    const v = await sendOk(api, { phone });
    await api.check({ verification_id: v.id, code: await codeFor(t.services, phone) });
    clock.advance(1000);
    await sendOk(api, { phone });
    assert.equal(json<Verification>(await api.get(v.id)).status, 'verified');
  });

  test('supersede is atomic: after concurrent sends to one number exactly one is pending', async () => {
    const phone = '+61412345044';
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => api.send({ phone })));
    for (const res of results) assert.equal(res.statusCode, 201, res.body);
    const rows = await t.store.db
      .selectFrom('verifications')
      .select(['id', 'status'])
      .where('phone', '=', phone)
      .execute();
    assert.equal(rows.length, 5);
    assert.equal(rows.filter((r) => r.status === 'pending').length, 1);
    assert.equal(rows.filter((r) => r.status === 'canceled').length, 4);
  });
});

describe('spec §4 send rule 2: a channel the workspace cannot use is 409 naming the reason, no fallback', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ clock: fakeClock() });
  });
  after(() => t.close());

  test('SMS from a workspace with only landline and 1300 numbers: 409 channel_unavailable no_mobile_number', async () => {
    const ws = await seedWorkspace(t.services, {
      name: 'Landline Co',
      numbers: [{ number: '+61298765432' }, { number: '+611300123456' }],
    });
    const api = client(t.app, ws.key);
    const problem = assertProblem(
      await api.send({ phone: '+61412345050', channel: 'sms' }),
      409,
      'channel_unavailable',
    );
    assert.equal(problem.reason, 'no_mobile_number');
    // No other channel was used instead, and no verification was created.
    assert.deepEqual(await listOutbox(t.store.db, { to: '+61412345050', limit: 5 }), []);
    const rows = await t.store.db
      .selectFrom('verifications')
      .select('id')
      .where('phone', '=', '+61412345050')
      .execute();
    assert.deepEqual(rows, []);

    // Voice works from the same workspace.
    const v = await sendOk(api, { phone: '+61412345050' });
    assert.equal(v.channel, 'voice');
    assert.ok(['+61298765432', '+611300123456'].includes(v.delivery.from_number), v.delivery.from_number);
  });

  test('a workspace without any number: 409 channel_unavailable no_sender_number', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Empty Co', numbers: [] });
    const api = client(t.app, ws.key);
    for (const channel of ['voice', 'sms']) {
      const problem = assertProblem(
        await api.send({ phone: '+61412345051', channel }),
        409,
        'channel_unavailable',
      );
      assert.equal(problem.reason, 'no_sender_number');
    }
  });
});
