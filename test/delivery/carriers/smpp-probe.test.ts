// SMPP's credential probe against the SMSC simulator process (test/fakes/smsc.ts): a bind_transceiver with the
// account's credentials, as sending binds, then an unbind, and nothing submitted; a wrong password refused with
// the specification's name of the bind status; no SMSC, or one that never answers the bind, unreachable within
// the deadline, with no session left behind. The password is in no detail.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { CredentialTestResult } from '../../../src/carrier-accounts/credential-test.js';
import { createSmppGateway, type SmppGateway } from '../../../src/delivery/carriers/smpp/gateway.js';
import { smpp } from '../../../src/delivery/carriers/smpp/index.js';
import type { SmppEndpoint } from '../../../src/delivery/carriers/smpp/session.js';
import { startRecordingServer } from '../../fakes/recording-server.js';
import { type SmscHandle, startSmsc } from '../../fakes/smsc-process.js';
import { eventually } from '../../helpers/eventually.js';

const ACCOUNT = { systemId: 'probe1', password: 'probe-pass-s3cret' };

describe("SMPP's credential probe", () => {
  let smsc: SmscHandle;
  let gateway: SmppGateway;
  before(async () => {
    smsc = await startSmsc([ACCOUNT]);
    gateway = createSmppGateway({ onReceipt: async () => {}, log: { info() {}, warn() {} } });
  });
  after(async () => {
    await gateway.close();
    await smsc.close();
  });
  afterEach(() => smsc.bindMode('answer'));

  const endpoint = (overrides: Partial<SmppEndpoint> = {}): SmppEndpoint => ({
    host: '127.0.0.1',
    port: smsc.port,
    ...ACCOUNT,
    ...overrides,
  });
  function probe(credentials: SmppEndpoint, timeoutMs = 5_000, runtime: SmppGateway | null = gateway) {
    assert.ok(smpp.probe);
    return smpp.probe(
      { id: 'car_probe', workspaceId: 'ws_probe', type: 'smpp', baseUrl: undefined, credentials },
      { timeoutMs, runtime: runtime ?? undefined },
    );
  }
  const clean = (result: CredentialTestResult) =>
    assert.equal(result.detail.includes(ACCOUNT.password), false);

  test('ok: binds as a transceiver with the credentials, unbinds, submits nothing', async () => {
    const result = await probe(endpoint());
    assert.deepEqual(result, {
      outcome: 'ok',
      detail: `SMPP: bound to SMSC 127.0.0.1:${smsc.port} as a transceiver (its system id "smsc-sim"), then unbound`,
    });
    const state = await smsc.state();
    const binds = state.binds.filter((b) => b.systemId === ACCOUNT.systemId);
    assert.equal(binds.length, 1);
    assert.deepEqual(
      { password: binds[0]?.password, version: binds[0]?.interfaceVersion, status: binds[0]?.status },
      { password: ACCOUNT.password, version: 0x34, status: 0 },
    );
    assert.equal(state.unbinds.filter((u) => u.systemId === ACCOUNT.systemId).length, 1);
    assert.equal(state.submits.length, 0);
    await smsc.waitFor('the session closed', (s) => s.sessions.length === 0);
  });

  test('a wrong password: refused, with the bind status the SMSC answered', async () => {
    const result = await probe(endpoint({ password: 'not-the-password' }));
    assert.equal(result.outcome, 'refused');
    assert.equal(
      result.detail,
      `SMPP: SMSC 127.0.0.1:${smsc.port} refused the bind of carrier account car_probe: ESME_RINVPASWD (0x0000000E). Check the account's system id and password.`,
    );
    clean(result);
  });

  test('no SMSC at the address: unreachable', async () => {
    const gone = await startRecordingServer(() => undefined);
    await gone.close();
    const port = Number(new URL(gone.baseUrl).port);
    const result = await probe(endpoint({ port }));
    assert.equal(result.outcome, 'unreachable');
    assert.match(
      result.detail,
      /^SMPP: SMSC 127\.0\.0\.1:\d+ could not be reached for carrier account car_probe \(ECONNREFUSED\)$/,
    );
    clean(result);
  });

  test('an SMSC that never answers the bind: unreachable at the deadline, no session left open', async () => {
    await smsc.bindMode('stall');
    const started = Date.now();
    const result = await probe(endpoint(), 400);
    const took = Date.now() - started;
    assert.equal(result.outcome, 'unreachable');
    assert.match(result.detail, /did not answer bind_transceiver within 400 ms|did not bind within 400 ms/);
    assert.ok(took < 2_000, `${took} ms`);
    await eventually(
      'the stalled session is dropped',
      async () => (await smsc.state()).sessions.length === 0,
    );
    clean(result);
  });

  test('without the SMPP runtime (a process that has none), no bind is tried', async () => {
    const before = (await smsc.state()).binds.length;
    const result = await probe(endpoint(), 1_000, null);
    assert.equal(result.outcome, 'unreachable');
    assert.equal((await smsc.state()).binds.length, before);
  });
});
