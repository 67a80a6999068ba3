// service-spec "Channels" table (voice: any number on the workspace; sms: a mobile number on the workspace),
// "no automatic fallback between channels ... 409 that names the reason", section 4 send rule 2, section 7 (409).
// api-decisions: 409 channel_unavailable with reason no_mobile_number / no_sender_number; "SMS needs a mobile
// number; voice works from any number. The sender is a workspace number of the destination's country where
// there is one"; "never an automatic channel switch".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import { listOutbox } from '../../src/delivery/outbox.js';
import { client, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';

const AU_MOBILE = '+61491570156';
const AU_LANDLINE = '+61255501234';
const AU_LOCAL_RATE = '+611300555123';
const AU_TOLL_FREE = '+611800555123';
const NZ_MOBILE = '+64211234567';
const NZ_LANDLINE = '+6493001234';
const GB_LANDLINE = '+442079460000';
const GB_MOBILE = '+447400123456';

describe('channels', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function workspaceWith(numbers: { number: string; type?: string }[], name = 'Acme') {
    const ws = await seedWorkspace(t.services, { name, numbers });
    return { ...ws, api: client(t.app, ws.key) };
  }

  const verificationsOf = (workspaceId: string) =>
    t.store.db.selectFrom('verifications').selectAll().where('workspace_id', '=', workspaceId).execute();

  function assertChannelUnavailable(res: LightMyRequestResponse, reason: string) {
    assert.equal(res.statusCode, 409);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const body = json(res);
    assert.equal(body.code, 'channel_unavailable');
    assert.equal(body.status, 409);
    assert.equal(body.reason, reason, 'the response names the reason');
    assert.equal(typeof body.detail, 'string');
    assert.equal(body.id, undefined, 'no verification is returned');
    return body;
  }

  describe('Channels table, voice: any phone number on the workspace', () => {
    for (const [label, number, phone] of [
      ['mobile', AU_MOBILE, '+61412370001'],
      ['landline', AU_LANDLINE, '+61412370002'],
      ['local_rate (1300)', AU_LOCAL_RATE, '+61412370003'],
      ['toll_free (1800)', AU_TOLL_FREE, '+61412370004'],
    ] as const) {
      test(`voice works from a workspace whose only number is ${label}`, async () => {
        const ws = await workspaceWith([{ number }]);
        const res = await ws.api.send({ phone, channel: 'voice' });
        assert.equal(res.statusCode, 201);
        const v = json(res);
        assert.equal(v.channel, 'voice');
        assert.equal(v.status, 'pending');
        const delivery = v.delivery as { from_number: string; channel: string };
        assert.equal(delivery.from_number, number);
        assert.equal(delivery.channel, 'voice');
        const [message] = await listOutbox(t.store.db, { to: phone, limit: 1 });
        assert.equal(message?.verification_id, v.id);
        assert.equal(message?.channel, 'voice');
        assert.equal(message?.from, number);
      });
    }

    test('voice is the default channel', async () => {
      const ws = await workspaceWith([{ number: AU_LANDLINE }]);
      const v = json(await ws.api.send({ phone: '+61412370101' }));
      assert.equal(v.channel, 'voice');
    });
  });

  describe('Channels table, sms: a mobile number on the workspace', () => {
    test('sms works from a workspace with a mobile number, and the message goes out as SMS', async () => {
      const ws = await workspaceWith([{ number: AU_MOBILE }]);
      const phone = '+61412370102';
      const res = await ws.api.send({ phone, channel: 'sms' });
      assert.equal(res.statusCode, 201);
      const v = json(res);
      assert.equal(v.channel, 'sms');
      assert.equal((v.delivery as { channel: string }).channel, 'sms');
      const [message] = await listOutbox(t.store.db, { to: phone, limit: 1 });
      assert.equal(message?.channel, 'sms');
      assert.equal(message?.from, AU_MOBILE);
    });

    test('sms is sent from the mobile number when the workspace also has landline, 1300 and 1800 numbers', async () => {
      const ws = await workspaceWith([
        { number: AU_LANDLINE },
        { number: AU_LOCAL_RATE },
        { number: AU_TOLL_FREE },
        { number: AU_MOBILE },
      ]);
      const v = json(await ws.api.send({ phone: '+61412370103', channel: 'sms' }));
      assert.equal((v.delivery as { from_number: string }).from_number, AU_MOBILE);
    });

    for (const [label, numbers] of [
      ['only a landline', [AU_LANDLINE]],
      ['only a 1300 (local_rate) number', [AU_LOCAL_RATE]],
      ['only a 1800 (toll_free) number', [AU_TOLL_FREE]],
      [
        'landline, local_rate and toll_free numbers but no mobile',
        [AU_LANDLINE, AU_LOCAL_RATE, AU_TOLL_FREE],
      ],
    ] as const) {
      test(`409 channel_unavailable, reason no_mobile_number: sms from a workspace with ${label}; nothing is sent`, async () => {
        const ws = await workspaceWith(numbers.map((number) => ({ number })));
        const phone = '+61412370104';
        const before = await listOutbox(t.store.db, { to: phone, limit: 1000 });
        const res = await ws.api.send({ phone, channel: 'sms' });
        assertChannelUnavailable(res, 'no_mobile_number');
        assert.deepEqual(await verificationsOf(ws.workspaceId), [], 'no verification row');
        assert.deepEqual(
          await listOutbox(t.store.db, { to: phone, limit: 1000 }),
          before,
          'nothing in the outbox',
        );
      });
    }

    test('the 409 does not touch an earlier pending verification of the number', async () => {
      const ws = await workspaceWith([{ number: AU_LANDLINE }]);
      const phone = '+61412370105';
      const id = String(json(await ws.api.send({ phone, channel: 'voice' })).id);
      assertChannelUnavailable(await ws.api.send({ phone, channel: 'sms' }), 'no_mobile_number');
      assert.equal(json(await ws.api.get(id)).status, 'pending');
    });
  });

  describe('no sender number', () => {
    for (const channel of ['voice', 'sms'] as const) {
      test(`409 channel_unavailable, reason no_sender_number: ${channel} from a workspace with no numbers; nothing is sent`, async () => {
        const ws = await workspaceWith([]);
        const phone = `+6141237020${channel === 'voice' ? 1 : 2}`;
        const res = await ws.api.send({ phone, channel });
        assertChannelUnavailable(res, 'no_sender_number');
        assert.deepEqual(await verificationsOf(ws.workspaceId), []);
        assert.deepEqual(await listOutbox(t.store.db, { to: phone, limit: 10 }), []);
      });
    }
  });

  describe('no fallback between channels', () => {
    test('an SMS request that cannot be served is refused, not delivered by voice', async () => {
      const ws = await workspaceWith([{ number: AU_LANDLINE }, { number: NZ_LANDLINE }]);
      const phone = '+61412370301';
      const res = await ws.api.send({ phone, channel: 'sms' });
      assertChannelUnavailable(res, 'no_mobile_number');
      const rows = await verificationsOf(ws.workspaceId);
      assert.equal(rows.filter((r) => r.channel === 'voice').length, 0, 'no voice verification was created');
      assert.deepEqual(await listOutbox(t.store.db, { to: phone, limit: 10 }), [], 'no call was made');
    });

    test('a rejected SMS hand-over stays an SMS: undelivered, no voice call instead', async () => {
      const ws = await workspaceWith([{ number: AU_MOBILE }]);
      const phone = '+61412370999';
      const v = json(await ws.api.send({ phone, channel: 'sms' }));
      assert.equal(v.status, 'undelivered');
      assert.equal(v.channel, 'sms');
      assert.equal((v.delivery as { channel: string }).channel, 'sms');
      const rows = await verificationsOf(ws.workspaceId);
      assert.deepEqual(
        rows.map((r) => r.channel),
        ['sms'],
      );
      assert.deepEqual(await listOutbox(t.store.db, { to: phone, limit: 10 }), []);
    });
  });

  describe('sender selection: a number of the destination’s country where there is one', () => {
    test('voice: the sender is the workspace number of the destination’s country', async () => {
      const ws = await workspaceWith([
        { number: AU_LANDLINE },
        { number: NZ_LANDLINE },
        { number: GB_LANDLINE },
      ]);
      for (const [phone, from] of [
        ['+61412370401', AU_LANDLINE],
        ['+64211230401', NZ_LANDLINE],
        ['+442079460401', GB_LANDLINE],
      ] as const) {
        const v = json(await ws.api.send({ phone }));
        assert.equal((v.delivery as { from_number: string }).from_number, from, phone);
        const [message] = await listOutbox(t.store.db, { to: phone, limit: 1 });
        assert.equal(message?.from, from, `outbox from for ${phone}`);
      }
    });

    test('sms: the sender is the mobile number of the destination’s country', async () => {
      const ws = await workspaceWith([{ number: AU_MOBILE }, { number: NZ_MOBILE }, { number: GB_MOBILE }]);
      for (const [phone, from] of [
        ['+61412370402', AU_MOBILE],
        ['+64211230402', NZ_MOBILE],
        ['+442079460402', GB_MOBILE],
      ] as const) {
        const v = json(await ws.api.send({ phone, channel: 'sms' }));
        assert.equal((v.delivery as { from_number: string }).from_number, from, phone);
      }
    });

    test('sms: a same-country landline is never used; a mobile of another country sends instead', async () => {
      const ws = await workspaceWith([{ number: AU_MOBILE }, { number: NZ_LANDLINE }]);
      const v = json(await ws.api.send({ phone: '+64211230403', channel: 'sms' }));
      assert.equal((v.delivery as { from_number: string }).from_number, AU_MOBILE);
      // Voice to the same country takes the same-country landline.
      const voice = json(await ws.api.send({ phone: '+64211230404', channel: 'voice' }));
      assert.equal((voice.delivery as { from_number: string }).from_number, NZ_LANDLINE);
    });

    test('where no number of the destination’s country exists, a workspace number still sends', async () => {
      const ws = await workspaceWith([{ number: NZ_LANDLINE }, { number: AU_LANDLINE }]);
      const res = await ws.api.send({ phone: '+12015550405' });
      assert.equal(res.statusCode, 201);
      const from = (json(res).delivery as { from_number: string }).from_number;
      assert.ok([NZ_LANDLINE, AU_LANDLINE].includes(from), `sent from a workspace number, not ${from}`);
    });
  });
  describe('a number on an SMPP account sends SMS only', () => {
    /** Ties the workspace's number to a new SMPP account (nothing is sent here: no session is opened). */
    async function onSmpp(workspaceId: string, number: string) {
      const s = t.services;
      const account = await s.carriers.addAccount(
        {
          workspaceId,
          type: 'smpp',
          credentials: { host: '127.0.0.1', port: 2775, systemId: 'acme', password: 'pw' },
        },
        OPERATOR,
      );
      const row = (await s.workspaces.listNumbers(workspaceId)).find((n) => n.number === number);
      assert.ok(row);
      await s.carriers.setNumberCarrier(workspaceId, row.id, account.id, OPERATOR);
    }

    test('voice from a workspace whose only number is on SMPP: 409 channel_unavailable no_voice_number', async () => {
      const ws = await workspaceWith([{ number: AU_MOBILE }], 'SMPP only');
      await onSmpp(ws.workspaceId, AU_MOBILE);
      const body = assertChannelUnavailable(await ws.api.send({ phone: '+61412370501' }), 'no_voice_number');
      assert.match(String(body.detail), /SMPP, which carries SMS only/);
      assert.deepEqual(await verificationsOf(ws.workspaceId), []);
    });

    test('voice skips the SMPP number for another that calls, even of another country', async () => {
      const ws = await workspaceWith([{ number: AU_MOBILE }, { number: NZ_LANDLINE }], 'SMPP and voice');
      await onSmpp(ws.workspaceId, AU_MOBILE);
      const voice = json(await ws.api.send({ phone: '+61412370502', channel: 'voice' }));
      assert.equal((voice.delivery as { from_number: string }).from_number, NZ_LANDLINE);
    });
  });
});
