// The SMPP adapter against a real SMSC simulator process on loopback (test/fakes/smsc.ts): the submit_sm's
// exact fields and encoding, the bind with the account's credentials, one session per account kept and bound
// again after a drop or a change of credentials, and each outcome (accepted, definitive, transient).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import {
  createSmppGateway,
  type SmppAccount,
  type SmppGateway,
  type SmppGatewayOptions,
} from '../../../src/delivery/carriers/smpp/gateway.js';
import { type OutboundMessage, TransientDeliveryError } from '../../../src/delivery/provider.js';
import { smsText } from '../../../src/delivery/sms-text.js';
import { type SmscHandle, type SmscState, startSmsc } from '../../fakes/smsc-process.js';
import { outboundMessage } from '../../helpers/outbound.js';

const CODE = '482913';
const TO = '+61412345678';
const FROM = '+61491570156';

describe('SMPP adapter', () => {
  let smsc: SmscHandle;
  const gateways: SmppGateway[] = [];
  const logged: string[] = [];
  const allAccounts: { systemId: string; password: string }[] = [];
  let accounts = 0;

  before(async () => {
    smsc = await startSmsc([]);
  });
  after(() => smsc.close());
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.close()));
  });

  /** A gateway closed after the test; its log lines are kept to check that they say nothing secret. */
  function gateway(options: Partial<SmppGatewayOptions> = {}): SmppGateway {
    const g = createSmppGateway({
      onReceipt: async () => {},
      rebindDelayMs: 20,
      log: { info: (line) => logged.push(line), warn: (line) => logged.push(line) },
      ...options,
    });
    gateways.push(g);
    return g;
  }

  /** An account of its own, known to the simulator (each test tells its binds and submits apart by it). */
  async function account(): Promise<SmppAccount> {
    accounts += 1;
    const credentials = {
      host: '127.0.0.1',
      port: smsc.port,
      systemId: `acct${accounts}`,
      password: `pw-${accounts}-s3cret`,
    };
    allAccounts.push({ systemId: credentials.systemId, password: credentials.password });
    await smsc.setAccounts(allAccounts);
    return { id: `car_${accounts}`, workspaceId: 'ws_1', credentials };
  }

  const sms = (overrides: Partial<OutboundMessage> = {}) =>
    outboundMessage('sms', { to: TO, from: FROM, ...overrides }, CODE);
  const submitsOf = (state: SmscState, systemId: string) =>
    state.submits.filter((s) => s.systemId === systemId);
  const bindsOf = (state: SmscState, systemId: string) =>
    state.binds.filter((b) => b.systemId === systemId && b.status === 0);

  /** A TransientDeliveryError whose message names no password, no text and no code. */
  async function assertTransient(send: Promise<unknown>, pattern: RegExp, secrets: string[] = []) {
    const err = await send.then(
      () => assert.fail('expected a TransientDeliveryError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TransientDeliveryError, `got ${String(err)}`);
    assert.match(err.message, pattern);
    for (const secret of [...secrets, CODE, 'do not share'])
      assert.ok(!err.message.includes(secret), err.message);
  }

  test('submit_sm: international TON/NPI, digits without +, receipt requested, GSM text ending in the code', async () => {
    const acct = await account();
    const result = await gateway().adapterFor(acct).send(sms());
    const state = await smsc.state();
    const [submit] = submitsOf(state, acct.credentials.systemId);
    assert.ok(submit);
    assert.deepEqual(
      {
        sourceTon: submit.sourceTon,
        sourceNpi: submit.sourceNpi,
        source: submit.source,
        destTon: submit.destTon,
        destNpi: submit.destNpi,
        destination: submit.destination,
        esmClass: submit.esmClass,
        registeredDelivery: submit.registeredDelivery,
        dataCoding: submit.dataCoding,
        via: submit.via,
      },
      {
        sourceTon: 1,
        sourceNpi: 1,
        source: '61491570156',
        destTon: 1,
        destNpi: 1,
        destination: '61412345678',
        esmClass: 0,
        registeredDelivery: 1,
        dataCoding: 0,
        via: 'short_message',
      },
    );
    assert.equal(submit.text, smsText('Acme', CODE));
    assert.ok(submit.text.endsWith(CODE));
    assert.deepEqual(result, { ok: true, providerId: submit.messageId });
  });

  test("bind_transceiver with the account's system id and password, SMPP v3.4", async () => {
    const acct = await account();
    await gateway().adapterFor(acct).send(sms());
    const [bind] = bindsOf(await smsc.state(), acct.credentials.systemId);
    assert.deepEqual(bind && { ...bind, sessionId: 0 }, {
      sessionId: 0,
      systemId: acct.credentials.systemId,
      password: acct.credentials.password,
      systemType: '',
      interfaceVersion: 0x34,
      status: 0,
    });
  });

  test('a brand outside the GSM alphabet: data_coding 8, UCS2 (UTF-16BE), the text intact', async () => {
    const acct = await account();
    const text = smsText('Zoë 北京', CODE);
    await gateway().adapterFor(acct).send(sms({ text }));
    const [submit] = submitsOf(await smsc.state(), acct.credentials.systemId);
    assert.equal(submit?.dataCoding, 8);
    assert.equal(submit?.text, text);
    assert.ok(submit?.text.endsWith(CODE));
  });

  test('GSM accents and the extension table (€, [ ]) stay in data_coding 0', async () => {
    const acct = await account();
    const text = smsText('Café [Ñandu] €5 @home', CODE);
    await gateway().adapterFor(acct).send(sms({ text }));
    const [submit] = submitsOf(await smsc.state(), acct.credentials.systemId);
    assert.equal(submit?.dataCoding, 0);
    assert.equal(submit?.text, text);
  });

  test('a text longer than one SMS goes in message_payload, whole (GSM and UCS2)', async () => {
    const acct = await account();
    const adapter = gateway().adapterFor(acct);
    const gsm = smsText('A'.repeat(120), CODE); // > 160 septets
    const ucs2 = smsText('Zoë'.repeat(20), CODE); // > 70 UCS2 units
    await adapter.send(sms({ text: gsm }));
    await adapter.send(sms({ text: ucs2 }));
    const submits = submitsOf(await smsc.state(), acct.credentials.systemId);
    assert.deepEqual(
      submits.map((s) => [s.via, s.dataCoding, s.text]),
      [
        ['message_payload', 0, gsm],
        ['message_payload', 8, ucs2],
      ],
    );
  });

  test('one bound session per account: sends, concurrent or not, share it', async () => {
    const acct = await account();
    const adapter = gateway().adapterFor(acct);
    await Promise.all([adapter.send(sms()), adapter.send(sms()), adapter.send(sms())]);
    await adapter.send(sms());
    const state = await smsc.state();
    assert.equal(bindsOf(state, acct.credentials.systemId).length, 1);
    const sessions = new Set(submitsOf(state, acct.credentials.systemId).map((s) => s.sessionId));
    assert.equal(submitsOf(state, acct.credentials.systemId).length, 4);
    assert.equal(sessions.size, 1);
  });

  test('the session is kept alive with enquire_link', async () => {
    const acct = await account();
    await gateway({ enquireLinkMs: 20 }).adapterFor(acct).send(sms());
    const before = (await smsc.state()).enquireLinks;
    await smsc.waitFor('two enquire_links', (s) => s.enquireLinks >= before + 2);
    assert.equal(bindsOf(await smsc.state(), acct.credentials.systemId).length, 1, 'still the one session');
  });

  test('the SMSC drops the connection: the gateway binds again by itself, and the next send uses the new session', async () => {
    const acct = await account();
    const { systemId } = acct.credentials;
    const adapter = gateway().adapterFor(acct);
    await adapter.send(sms());
    assert.equal(await smsc.drop(systemId), 1);
    await smsc.waitFor('a second bind', (s) => bindsOf(s, systemId).length === 2);
    await adapter.send(sms());
    const state = await smsc.state();
    const [first, second] = submitsOf(state, systemId);
    assert.notEqual(first?.sessionId, second?.sessionId);
    assert.equal(second?.sessionId, bindsOf(state, systemId)[1]?.sessionId);
    assert.ok(logged.some((line) => line.includes(acct.id) && /dropped/.test(line)));
  });

  test('an SMSC that stops answering enquire_link is dropped and bound again', async () => {
    const acct = await account();
    const { systemId } = acct.credentials;
    await gateway({ enquireLinkMs: 20, timeoutMs: 1500 }).adapterFor(acct).send(sms());
    await smsc.enquireLinkMode('ignore');
    try {
      await smsc.waitFor(
        'a second session',
        (s) => s.binds.filter((b) => b.systemId === systemId).length >= 2,
      );
    } finally {
      await smsc.enquireLinkMode('answer');
    }
  });

  test('new credentials for the account: the old session is unbound and a new one bound', async () => {
    const acct = await account();
    const g = gateway();
    await g.adapterFor(acct).send(sms());
    // The same account id, a rotated password (the simulator knows both).
    const rotated = { ...acct.credentials, password: `${acct.credentials.password}-2` };
    allAccounts.push({ systemId: rotated.systemId, password: rotated.password });
    await smsc.setAccounts(allAccounts);
    await g.adapterFor({ ...acct, credentials: rotated }).send(sms());
    const state = await smsc.state();
    const binds = bindsOf(state, rotated.systemId);
    assert.deepEqual(
      binds.map((b) => b.password),
      [acct.credentials.password, rotated.password],
    );
    await smsc.waitFor('the old session unbound', (s) =>
      s.unbinds.some((u) => u.sessionId === binds[0]?.sessionId),
    );
    const submits = submitsOf(state, rotated.systemId);
    assert.equal(submits[1]?.sessionId, binds[1]?.sessionId);
  });

  test('close() unbinds every session and waits for it to close', async () => {
    const [a, b] = [await account(), await account()];
    const g = createSmppGateway({ onReceipt: async () => {} });
    await g.adapterFor(a).send(sms());
    await g.adapterFor(b).send(sms());
    await g.close();
    // close() resolved after the SMSC's unbind_resp: both unbinds are on record already.
    const state = await smsc.state();
    for (const { credentials } of [a, b]) {
      assert.ok(state.unbinds.some((u) => u.systemId === credentials.systemId));
    }
    const systemIds = [a.credentials.systemId, b.credentials.systemId];
    await smsc.waitFor(
      'both connections closed',
      (s) => !s.sessions.some((x) => systemIds.includes(x.systemId ?? '')),
    );
    await assertTransient(g.adapterFor(a).send(sms()), /closed/);
  });

  describe('outcomes', () => {
    const definitive: [number, string, 'destination_rejected' | 'provider_error'][] = [
      [0x0b, 'ESME_RINVDSTADR (0x0000000B)', 'destination_rejected'],
      [0x0a, 'ESME_RINVSRCADR (0x0000000A)', 'provider_error'],
      [0x51, 'ESME_RINVDSTNPI (0x00000051)', 'provider_error'],
      [0x0402, 'vendor-specific error (0x00000402)', 'provider_error'],
    ];
    for (const [status, name, errorCode] of definitive) {
      test(`submit_sm_resp ${name}: definitive ${errorCode}, named by status`, async () => {
        const acct = await account();
        await smsc.rule('61400000001', { kind: 'status', status });
        try {
          const result = await gateway()
            .adapterFor(acct)
            .send(sms({ to: '+61400000001' }));
          assert.equal(result.ok, false);
          assert.ok(!result.ok);
          assert.equal(result.errorCode, errorCode);
          assert.equal(result.providerId, null);
          assert.ok(result.errorMessage.includes(name), result.errorMessage);
          for (const secret of [acct.credentials.password, CODE])
            assert.ok(!result.errorMessage.includes(secret));
        } finally {
          await smsc.rule('61400000001', null);
        }
      });
    }

    const transient: [number, string][] = [
      [0x58, 'ESME_RTHROTTLED (0x00000058)'],
      [0x14, 'ESME_RMSGQFUL (0x00000014)'],
      [0x08, 'ESME_RSYSERR (0x00000008)'],
      [0x45, 'ESME_RSUBMITFAIL (0x00000045)'],
    ];
    for (const [status, name] of transient) {
      test(`submit_sm_resp ${name}: TransientDeliveryError, the session kept`, async () => {
        const acct = await account();
        const adapter = gateway().adapterFor(acct);
        await smsc.rule('61400000002', { kind: 'status', status });
        try {
          await assertTransient(
            adapter.send(sms({ to: '+61400000002' })),
            new RegExp(name.replace(/[()]/g, '\\$&')),
            [acct.credentials.password],
          );
        } finally {
          await smsc.rule('61400000002', null);
        }
        assert.equal((await adapter.send(sms())).ok, true);
        assert.equal(bindsOf(await smsc.state(), acct.credentials.systemId).length, 1);
      });
    }

    test('a wrong password: the SMSC refuses the bind (ESME_RINVPASWD), a provider_error without the password', async () => {
      const acct = await account();
      const wrong = { ...acct, credentials: { ...acct.credentials, password: 'not-the-Pa55word' } };
      const result = await gateway().adapterFor(wrong).send(sms());
      assert.ok(!result.ok);
      assert.equal(result.errorCode, 'provider_error');
      assert.match(
        result.errorMessage,
        /refused the bind of carrier account car_\d+: ESME_RINVPASWD \(0x0000000E\)/,
      );
      assert.ok(!result.errorMessage.includes('not-the-Pa55word'));
      assert.equal(submitsOf(await smsc.state(), acct.credentials.systemId).length, 0);
    });

    test('connection refused: TransientDeliveryError', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as { port: number };
      await new Promise((resolve) => closed.close(resolve));
      const acct = await account();
      const nowhere = { ...acct, credentials: { ...acct.credentials, port } };
      await assertTransient(gateway().adapterFor(nowhere).send(sms()), /could not be reached.*ECONNREFUSED/, [
        acct.credentials.password,
      ]);
    });

    test('an SMSC that never answers the bind: TransientDeliveryError after the timeout', async () => {
      const acct = await account();
      await smsc.bindMode('stall');
      try {
        await assertTransient(
          gateway({ timeoutMs: 1500 }).adapterFor(acct).send(sms()),
          /did not answer bind_transceiver within 1500 ms/,
          [acct.credentials.password],
        );
      } finally {
        await smsc.bindMode('answer');
      }
    });

    test('a stalled submit_sm: TransientDeliveryError; the stalled session is dropped, the next send binds anew', async () => {
      const acct = await account();
      const adapter = gateway({ timeoutMs: 1500 }).adapterFor(acct);
      await smsc.rule('61400000003', { kind: 'stall' });
      try {
        await assertTransient(
          adapter.send(sms({ to: '+61400000003' })),
          /did not answer submit_sm within 1500 ms/,
        );
      } finally {
        await smsc.rule('61400000003', null);
      }
      assert.equal((await adapter.send(sms())).ok, true);
      assert.equal(bindsOf(await smsc.state(), acct.credentials.systemId).length, 2);
    });

    test('the connection dropped before submit_sm_resp: TransientDeliveryError', async () => {
      const acct = await account();
      await smsc.rule('61400000004', { kind: 'drop' });
      try {
        await assertTransient(
          gateway()
            .adapterFor(acct)
            .send(sms({ to: '+61400000004' })),
          /closed the connection before answering/,
        );
      } finally {
        await smsc.rule('61400000004', null);
      }
    });

    test('accepted without a message_id: TransientDeliveryError', async () => {
      const acct = await account();
      await smsc.rule('61400000005', { kind: 'no_message_id' });
      try {
        await assertTransient(
          gateway()
            .adapterFor(acct)
            .send(sms({ to: '+61400000005' })),
          /without a message_id/,
        );
      } finally {
        await smsc.rule('61400000005', null);
      }
    });

    test('voice: provider_error, SMPP carries SMS only; nothing bound or sent', async () => {
      const acct = await account();
      const result = await gateway()
        .adapterFor(acct)
        .send(outboundMessage('voice', {}, CODE));
      assert.deepEqual(result, {
        ok: false,
        providerId: null,
        errorCode: 'provider_error',
        errorMessage: `SMPP carries SMS only: carrier account ${acct.id} cannot make voice calls.`,
      });
      const state = await smsc.state();
      assert.equal(state.binds.filter((b) => b.systemId === acct.credentials.systemId).length, 0);
    });
  });

  test('no log line carries a password, a text or a code', () => {
    assert.ok(logged.length > 0);
    for (const line of logged) {
      for (const { password } of allAccounts) assert.ok(!line.includes(password), line);
      assert.ok(!line.includes(CODE) && !line.includes('do not share'), line);
    }
  });
});
