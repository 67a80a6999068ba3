// Sends routed to an SMPP account, end to end: POST /v1/otp/send for a workspace whose mobile number is tied to
// an smpp account that points at a real SMSC simulator process on loopback (test/fakes/smsc.ts). What the SMSC
// receives, what the verification says, the code proven real by checking it, and the SMSC's delivery receipts
// applied to the account's own workspace alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { createProviderRouter } from '../../src/delivery/router.js';
import { listEvents } from '../../src/timeline/timeline.js';
import { listNumbers } from '../../src/workspaces/repository.js';
import { type SmscHandle, startSmsc } from '../fakes/smsc-process.js';
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
import { eventually } from '../helpers/eventually.js';
import { outboundMessage } from '../helpers/outbound.js';

const SENDER = '+61491570156';
const ACME = { systemId: 'acme', password: 'acme-smpp-pw-1' };
const OTHER = { systemId: 'other', password: 'other-smpp-pw-2' };

describe('sends routed to an SMPP account', () => {
  let t: TestApp;
  let smsc: SmscHandle;
  let acme: { api: Client; workspaceId: string };
  let other: { api: Client; workspaceId: string };

  /** A workspace whose one mobile number sends through an smpp account with these credentials. */
  async function workspaceOn(credentials: { systemId: string; password: string }, name: string) {
    const s = t.services;
    const ws = await s.workspaces.createWorkspace({ name }, OPERATOR);
    const account = await s.carriers.addAccount(
      {
        workspaceId: ws.id,
        type: 'smpp',
        credentials: { host: '127.0.0.1', port: smsc.port, ...credentials },
      },
      OPERATOR,
    );
    await s.workspaces.addNumber({ workspaceId: ws.id, number: SENDER, carrierId: account.id }, OPERATOR);
    const key = await s.keys.createKey({ workspaceId: ws.id, name: 'backend' }, OPERATOR);
    return { api: client(t.app, key.key), workspaceId: ws.id };
  }

  async function send(api: Client, phone: string): Promise<Verification> {
    const res = await api.send({ phone, channel: 'sms' });
    assert.equal(res.statusCode, 201, res.body);
    return json<Verification>(res);
  }

  async function read(api: Client, id: string): Promise<Verification> {
    const res = await api.get(id);
    assert.equal(res.statusCode, 200, res.body);
    return json<Verification>(res);
  }

  before(async () => {
    smsc = await startSmsc([ACME, OTHER]);
    t = await createTestApp();
    acme = await workspaceOn(ACME, 'Acme');
    other = await workspaceOn(OTHER, 'Other');
  });
  after(async () => {
    await t.close(); // unbinds the sessions before the simulator goes
    await smsc.close();
  });

  test('201, handed over with the SMSC message_id; the SMSC has the text, and its code verifies', async () => {
    const v = await send(acme.api, '+61412345101');
    const submit = (await smsc.state()).submits.find((s) => s.destination === '61412345101');
    assert.ok(submit);
    assert.equal(submit.systemId, ACME.systemId);
    assert.equal(submit.source, SENDER.slice(1));
    assert.equal(v.status, 'pending');
    assert.equal(v.delivery.ok, true);
    assert.equal(v.delivery.provider_id, submit.messageId);
    const row = await t.store.db
      .selectFrom('verifications')
      .select(['delivery_provider', 'provider_id'])
      .where('id', '=', v.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { delivery_provider: 'smpp', provider_id: submit.messageId });
    await assert.rejects(
      codeFor(t.services, '+61412345101'),
      /no message/,
      'nothing in the development outbox',
    );

    const code = /(\d{6})$/.exec(submit.text)?.[1];
    assert.ok(code, 'the text ends in the code');
    const check = await acme.api.check({ verification_id: v.id, code });
    assert.equal(check.statusCode, 200, check.body);
    assert.equal(json(check).verified, true);
  });

  test('a receipt with stat:UNDELIV: undelivered, delivery_failed, the SMSC code in error_message; a duplicate changes nothing', async () => {
    const v = await send(acme.api, '+61412345102');
    const messageId = v.delivery.provider_id ?? '';
    assert.equal(await smsc.receipt({ messageId, stat: 'UNDELIV', err: '001' }), 0);
    const failed = await read(acme.api, v.id);
    assert.equal(failed.status, 'undelivered');
    assert.equal(failed.delivery.error_code, 'delivery_failed');
    assert.match(failed.delivery.error_message ?? '', /SMPP 001: UNDELIV/);

    const events = await listEvents(t.store.db, acme.workspaceId, v.id);
    assert.equal(await smsc.receipt({ messageId, stat: 'UNDELIV', err: '001' }), 0);
    assert.deepEqual(await read(acme.api, v.id), failed);
    assert.deepEqual(await listEvents(t.store.db, acme.workspaceId, v.id), events);
  });

  test('a receipt with stat:DELIVRD leaves the code pending', async () => {
    const v = await send(acme.api, '+61412345103');
    assert.equal(
      await smsc.receipt({ messageId: v.delivery.provider_id ?? '', stat: 'DELIVRD', form: 'tlv' }),
      0,
    );
    assert.equal((await read(acme.api, v.id)).status, 'pending');
  });

  test("a receipt for another workspace's message id, on this account's session, changes nothing", async () => {
    const theirs = await send(other.api, '+61412345104');
    const messageId = theirs.delivery.provider_id ?? '';
    // The SMSC of Acme's account reports on the other workspace's message.
    assert.equal(await smsc.receipt({ messageId, stat: 'UNDELIV', err: '001', systemId: ACME.systemId }), 0);
    const unchanged = await read(other.api, theirs.id);
    assert.equal(unchanged.status, 'pending');
    assert.equal(unchanged.delivery.ok, true);
    assert.equal(unchanged.delivery.error_code, null);
  });

  test('ESME_RINVDSTADR from the SMSC: undelivered at once, destination_rejected, the status named', async () => {
    await smsc.rule('61412345105', { kind: 'status', status: 0x0b });
    const v = await send(acme.api, '+61412345105');
    assert.equal(v.status, 'undelivered');
    assert.equal(v.delivery.ok, false);
    assert.equal(v.delivery.provider_id, null);
    assert.equal(v.delivery.error_code, 'destination_rejected');
    assert.match(v.delivery.error_message ?? '', /ESME_RINVDSTADR \(0x0000000B\)/);
    assert.equal(v.delivery.error_message?.includes(ACME.password), false);
  });

  test('ESME_RTHROTTLED: pending, retried by durable delivery once the SMSC takes messages again', async () => {
    await smsc.rule('61412345106', { kind: 'status', status: 0x58 });
    const v = await send(acme.api, '+61412345106');
    assert.equal(v.status, 'pending');
    assert.equal(v.delivery.ok, false);
    assert.match(v.delivery.error_message ?? '', /ESME_RTHROTTLED \(0x00000058\)/);
    await smsc.rule('61412345106', null);
    // The retry is due within a second (the first backoff step); the dispatcher is run as a process's would.
    const after = await eventually(
      'the retried hand-over',
      async () => {
        await t.services.dispatcher.runDue();
        const now = await read(acme.api, v.id);
        return now.delivery.ok && now;
      },
      { intervalMs: 100 },
    );
    assert.equal(after.delivery.ok, true);
    const accepted = (await smsc.state()).submits.filter((m) => m.destination === '61412345106');
    assert.equal(
      accepted.filter((m) => m.messageId !== null).length,
      1,
      'the SMSC accepted the message once',
    );
    const code = /(\d{6})$/.exec(accepted.at(-1)?.text ?? '')?.[1] ?? '';
    assert.equal(json(await acme.api.check({ verification_id: v.id, code })).verified, true);
  });

  test('the sends of each account went over one session of its own', async () => {
    const state = await smsc.state();
    for (const { systemId } of [ACME, OTHER]) {
      const binds = state.binds.filter((b) => b.systemId === systemId);
      assert.equal(binds.length, 1);
      assert.ok(
        state.submits
          .filter((s) => s.systemId === systemId)
          .every((s) => s.sessionId === binds[0]?.sessionId),
      );
    }
  });

  test('removing an account unbinds its session at once', async () => {
    const s = t.services;
    const ws = await s.workspaces.createWorkspace({ name: 'Leaving' }, OPERATOR);
    const account = await s.carriers.addAccount(
      {
        workspaceId: ws.id,
        type: 'smpp',
        credentials: { host: '127.0.0.1', port: smsc.port, ...ACME },
      },
      OPERATOR,
    );
    await s.workspaces.addNumber({ workspaceId: ws.id, number: SENDER, carrierId: account.id }, OPERATOR);
    const api = client(t.app, (await s.keys.createKey({ workspaceId: ws.id, name: 'k' }, OPERATOR)).key);
    await send(api, '+61412345191');
    const session = (await smsc.state()).submits.at(-1)?.sessionId;
    assert.ok(session !== undefined);
    const [number] = await listNumbers(t.store.db, ws.id);
    assert.ok(number);
    await s.carriers.setNumberCarrier(ws.id, number.id, null, OPERATOR);
    await s.carriers.removeAccount(ws.id, account.id, OPERATOR);
    const state = await smsc.state();
    assert.ok(
      state.unbinds.some((u) => u.sessionId === session),
      'the SMSC saw the session unbind',
    );
  });

  test('a router built without an SMPP gateway refuses SMPP accounts clearly, sending nothing', async () => {
    const { carriers, devProvider } = t.services;
    const { store } = t;
    const router = createProviderRouter({ carriers, devProvider, publicUrl: TEST_PUBLIC_URL });
    const [number] = await listNumbers(store.db, acme.workspaceId);
    assert.ok(number?.carrier_id);
    const provider = await router.providerFor(number);
    const submits = (await smsc.state()).submits.length;
    const result = await provider.send(outboundMessage('sms'));
    assert.ok(!result.ok);
    assert.equal(result.errorCode, 'provider_error');
    assert.match(result.errorMessage, new RegExp(`${number.carrier_id}.*SMPP sending is not set up`));
    assert.equal((await smsc.state()).submits.length, submits);
  });
});
