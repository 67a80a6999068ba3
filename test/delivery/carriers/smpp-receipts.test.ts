// SMSC delivery receipts through the SMPP gateway, from a real SMSC simulator process (test/fakes/smsc.ts):
// the Appendix B text form and the TLV form, each stat's meaning, the deliver_sm_resp that always follows, and
// what is not a receipt or cannot be read. Then the parser alone, on the forms SMSCs vary in.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import {
  createSmppGateway,
  type SmppAccount,
  type SmppGateway,
  type SmppReceipt,
} from '../../../src/delivery/carriers/smpp/gateway.js';
import { isDeliveryReceipt, parseReceipt } from '../../../src/delivery/carriers/smpp/receipt.js';
import { type SmscAccount, type SmscHandle, startSmsc } from '../../fakes/smsc-process.js';
import { outboundMessage } from '../../helpers/outbound.js';

const CODE = '482913';

describe('SMPP delivery receipts', () => {
  let smsc: SmscHandle;
  let g: SmppGateway;
  const receipts: SmppReceipt[] = [];
  const logged: string[] = [];
  const known: SmscAccount[] = [];
  let failApply = false;

  before(async () => {
    smsc = await startSmsc([]);
  });
  after(() => smsc.close());
  afterEach(() => g?.close());

  async function setUp(): Promise<{ acct: SmppAccount; messageId: string }> {
    receipts.length = 0;
    logged.length = 0;
    g = createSmppGateway({
      rebindDelayMs: 20,
      onReceipt: async (receipt) => {
        if (failApply) throw new Error('the database is away');
        receipts.push(receipt);
      },
      log: { info: (line) => logged.push(line), warn: (line) => logged.push(line) },
    });
    const n = known.length + 1;
    const credentials = {
      host: '127.0.0.1',
      port: smsc.port,
      systemId: `rcpt${n}`,
      password: `rcpt-${n}-pw`,
    };
    known.push({ systemId: credentials.systemId, password: credentials.password });
    await smsc.setAccounts(known);
    const acct = { id: `car_r${n}`, workspaceId: `ws_r${n}`, credentials };
    const result = await g.adapterFor(acct).send(outboundMessage('sms', {}, CODE));
    assert.ok(result.ok);
    return { acct, messageId: result.providerId };
  }

  test('text form, stat:DELIVRD: delivered, for the account and its workspace; answered with status 0', async () => {
    const { acct, messageId } = await setUp();
    assert.equal(await smsc.receipt({ messageId, stat: 'DELIVRD' }), 0);
    assert.deepEqual(receipts, [
      {
        accountId: acct.id,
        workspaceId: acct.workspaceId,
        report: { providerId: messageId, state: 'delivered' },
      },
    ]);
  });

  test("text form, stat:UNDELIV err:001: failed, the err as the carrier's code and the stat as its words", async () => {
    const { messageId } = await setUp();
    assert.equal(await smsc.receipt({ messageId, stat: 'UNDELIV', err: '001' }), 0);
    assert.deepEqual(
      receipts.map((r) => r.report),
      [{ providerId: messageId, state: 'failed', carrierCode: '001', carrierMessage: 'UNDELIV' }],
    );
  });

  const states: [string, 'accepted' | 'delivered' | 'failed'][] = [
    ['DELIVRD', 'delivered'],
    ['ACCEPTD', 'accepted'],
    ['ENROUTE', 'accepted'],
    ['UNDELIV', 'failed'],
    ['REJECTD', 'failed'],
    ['EXPIRED', 'failed'],
    ['DELETED', 'failed'],
    ['UNKNOWN', 'failed'],
  ];
  for (const [stat, state] of states) {
    test(`TLV form (receipted_message_id, message_state ${stat}): ${state}`, async () => {
      const { messageId } = await setUp();
      assert.equal(await smsc.receipt({ messageId, stat, form: 'tlv' }), 0);
      const failure = state === 'failed' ? { carrierCode: stat, carrierMessage: stat } : {};
      assert.deepEqual(
        receipts.map((r) => r.report),
        [{ providerId: messageId, state, ...failure }],
      );
    });
  }

  test('a receipt arrives on the session bound again after a drop', async () => {
    const { acct, messageId } = await setUp();
    await smsc.drop(acct.credentials.systemId);
    await smsc.waitFor('the session bound again', (s) =>
      s.sessions.some((x) => x.systemId === acct.credentials.systemId && x.bound),
    );
    assert.equal(await smsc.receipt({ messageId, stat: 'UNDELIV', err: '005' }), 0);
    assert.equal(receipts[0]?.report.carrierCode, '005');
  });

  test('a receipt that names no message or no state: answered with 0, ignored, logged without its text', async () => {
    const { acct } = await setUp();
    const text = 'hello: not a receipt at all 99887766';
    assert.equal(await smsc.deliver({ systemId: acct.credentials.systemId, esmClass: 0x04, text }), 0);
    assert.deepEqual(receipts, []);
    assert.equal(logged.length, 1);
    assert.match(logged[0] ?? '', new RegExp(`${acct.id}: acknowledged a delivery receipt without`));
    assert.ok(!logged[0]?.includes('99887766'));
  });

  test('a deliver_sm that is no receipt (a reply from a phone): answered with 0, not applied, text not logged', async () => {
    const { acct } = await setUp();
    const text = 'STOP 55443322';
    assert.equal(await smsc.deliver({ systemId: acct.credentials.systemId, esmClass: 0x00, text }), 0);
    assert.deepEqual(receipts, []);
    assert.ok(logged.every((line) => !line.includes('55443322')));
  });

  test('a receipt that cannot be applied is still answered with 0, and the failure logged', async () => {
    const { acct, messageId } = await setUp();
    failApply = true;
    try {
      assert.equal(await smsc.receipt({ messageId, stat: 'UNDELIV' }), 0);
    } finally {
      failApply = false;
    }
    assert.ok(logged.some((line) => line.includes(acct.id) && line.includes('could not be applied')));
  });
});

describe('SMPP receipt parsing', () => {
  const text = (stat: string, rest = '') =>
    `id:0a1b2c3d4e sub:001 dlvrd:000 submit date:2501011200 done date:2501011201 stat:${stat} err:000 text:Acme${rest}`;

  test('esm_class bits 5-2 = 0001 mark a receipt, whatever the mode bits; other types do not', () => {
    assert.equal(isDeliveryReceipt(0x04), true);
    assert.equal(isDeliveryReceipt(0x07), true);
    assert.equal(isDeliveryReceipt(0x00), false);
    assert.equal(isDeliveryReceipt(0x08), false); // SME delivery acknowledgement
    assert.equal(isDeliveryReceipt(0x20), false); // intermediate notification
  });

  test('the TLVs win over the text; the text still gives err', () => {
    const report = parseReceipt({
      receipted_message_id: 'FROMTLV',
      message_state: 5,
      short_message: { message: text('DELIVRD').replace('err:000', 'err:0x1F') },
    });
    assert.deepEqual(report, {
      providerId: 'FROMTLV',
      state: 'failed',
      carrierCode: '0x1F',
      carrierMessage: 'UNDELIV',
    });
  });

  test('field names in any case ("Stat:", "Text:"), and the receipt in message_payload', () => {
    const upper = text('rejectd').replace('stat:', 'Stat:').replace('text:', 'Text:');
    assert.deepEqual(parseReceipt({ short_message: { message: '' }, message_payload: { message: upper } }), {
      providerId: '0a1b2c3d4e',
      state: 'failed',
      carrierCode: '000',
      carrierMessage: 'REJECTD',
    });
  });

  test('"stat:" inside the text field does not override the real one', () => {
    assert.equal(
      parseReceipt({ short_message: { message: text('UNDELIV', ' stat:DELIVRD') } })?.state,
      'failed',
    );
  });

  test('no id, no stat, or a state outside v3.4 (SCHEDULED, SKIPPED): nothing', () => {
    assert.equal(parseReceipt({ short_message: { message: 'stat:DELIVRD err:000' } }), undefined);
    assert.equal(parseReceipt({ short_message: { message: 'id:abc err:000' } }), undefined);
    assert.equal(parseReceipt({ receipted_message_id: 'abc', message_state: 0 }), undefined);
    assert.equal(parseReceipt({ receipted_message_id: 'abc', message_state: 9 }), undefined);
  });
});
