// Durable delivery (issue 5): the job committed with the verification, the first attempt within the send,
// retries of transient failures with backoff inside the code's lifetime, no retry of definitive rejections,
// fail-over on the same channel, and two dispatchers never handing the same job over twice. Carriers are the
// local Twilio double (test/fakes/twilio.ts); time is a fake clock, moved by hand.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { findJob } from '../../src/delivery/jobs.js';
import { createServices } from '../../src/services.js';
import { listEvents } from '../../src/timeline/timeline.js';
import { startTwilioFake, type TwilioFake, type TwilioFakeReply } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import {
  type Client,
  client,
  createTestApp,
  json,
  TEST_PUBLIC_URL,
  TEST_SECRET,
  type TestApp,
} from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { CARRIER_SENDER as SENDER, twilioWorkspace } from '../helpers/carrier-workspace.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { startStallGate } from '../helpers/stall-gate.js';

const BACKUP_SENDER = '+61491570157';

describe('durable delivery', () => {
  let t: TestApp;
  let clock: FakeClock;
  let twilio: TwilioFake;
  let backup: TwilioFake;
  let api: Client;
  let workspaceId = '';
  let phoneSeq = 100;
  const nextPhone = () => `+614123${String(phoneSeq++).padStart(5, '0')}`;

  before(async () => {
    clock = fakeClock();
    twilio = await startTwilioFake(TWILIO);
    backup = await startTwilioFake({ ...TWILIO, authToken: 'backup-token-backup-token-000000' });
    // The jitter source pinned to its low end: each delay is exactly half its exponential step.
    t = await createTestApp({ clock, delivery: { random: () => 0, carrierTimeoutMs: 300 } });
    ({ workspaceId, api } = await twilioWorkspace(t.services, t.app, twilio.baseUrl));
  });
  after(async () => {
    await t.close();
    await twilio.close();
    await backup.close();
  });
  beforeEach(() => {
    twilio.requests.length = 0;
    backup.requests.length = 0;
  });

  /** The services of a second process on the same database: its own dispatcher, leases and timers. */
  const anotherProcess = () =>
    createServices({
      store: t.store,
      secret: TEST_SECRET,
      clock,
      publicUrl: TEST_PUBLIC_URL,
      delivery: { random: () => 0, carrierTimeoutMs: 300 },
    });

  /** A second app on the same database whose sends wait 50 ms, and whose carrier requests may take a minute. */
  async function slowProcess() {
    const app = await createTestApp({
      dir: t.dir,
      clock,
      delivery: { waitMs: 50, carrierTimeoutMs: 60_000 },
    });
    const key = await app.services.keys.createKey({ workspaceId, name: 'slow process' }, OPERATOR);
    return { ...app, api: client(app.app, key.key) };
  }

  async function send(body: Record<string, unknown>): Promise<Verification> {
    const res = await api.send({ channel: 'sms', ...body });
    assert.equal(res.statusCode, 201, res.body);
    return json<Verification>(res);
  }
  const read = async (id: string) => json<Verification>(await api.get(id));
  const codeIn = (body: string | null | undefined) => /(\d{6})$/.exec(body ?? '')?.[1];
  const kinds = async (id: string) => (await listEvents(t.store.db, workspaceId, id)).map((e) => e.kind);

  test('a send commits its job; a hand-over at the first attempt deletes it (and the sealed code with it)', async () => {
    const v = await send({ phone: nextPhone() });
    assert.equal(v.delivery.ok, true);
    assert.equal(await findJob(t.store.db, v.id), undefined);
  });

  test('a 503, then the retry after the backoff hands over the same code; the response said pending', async () => {
    twilio.reply({ kind: 'server_error', status: 503 });
    const v = await send({ phone: nextPhone() });
    assert.equal(v.status, 'pending');
    assert.equal(v.delivery.ok, false);
    assert.equal(v.delivery.error_code, null);
    assert.match(v.delivery.error_message ?? '', /attempt 2 \(from \+61491570156\) is due at/);

    // Not before its time: half the first step (the jitter pinned low) is 500 ms.
    clock.advance(499);
    assert.equal(await t.services.dispatcher.runDue(), 0);
    clock.advance(1);
    assert.equal(await t.services.dispatcher.runDue(), 1);

    assert.equal(twilio.requests.length, 2);
    const [first, second] = twilio.requests.map((r) => r.form.get('Body'));
    assert.equal(second, first, 'the retry carries the same message and code');
    const after = await read(v.id);
    assert.equal(after.status, 'pending');
    assert.equal(after.delivery.ok, true);
    assert.match(after.delivery.provider_id ?? '', /^SM/);
    assert.equal(after.delivery.error_message, null);
    assert.deepEqual(await kinds(v.id), ['created', 'retry_scheduled', 'handed_over']);
    assert.equal(await findJob(t.store.db, v.id), undefined);
    const check = json(await api.check({ verification_id: v.id, code: codeIn(second) }));
    assert.equal(check.verified, true);
  });

  test('429 with Retry-After: the next attempt waits at least that long', async () => {
    twilio.reply({ kind: 'rate_limited', retryAfter: '20' });
    const v = await send({ phone: nextPhone() });
    assert.equal((await findJob(t.store.db, v.id))?.next_attempt_at, clock.now() + 20_000);
    clock.advance(19_999);
    assert.equal(await t.services.dispatcher.runDue(), 0);
    clock.advance(1);
    assert.equal(await t.services.dispatcher.runDue(), 1);
    assert.equal(twilio.requests.length, 2);
    assert.equal((await read(v.id)).delivery.ok, true);
  });

  test('a refused connection: pending, nothing sent; once the carrier listens again, the code arrives once', async () => {
    const gate = await startStallGate(Number(new URL(twilio.baseUrl).port));
    try {
      await gate.refuse();
      const { api: refusedApi } = await twilioWorkspace(t.services, t.app, gate.url, 'Refused');
      twilio.accepted.length = 0;
      const v = json<Verification>(await refusedApi.send({ phone: nextPhone(), channel: 'sms' }));
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, false);
      assert.match(
        v.delivery.error_message ?? '',
        /attempt 1 failed \(the twilio provider failed to take the message/,
      );
      assert.equal(twilio.accepted.length, 0);

      await gate.open();
      clock.advance(1000);
      assert.equal(await t.services.dispatcher.runDue(), 1);
      assert.equal(json<Verification>(await refusedApi.get(v.id)).delivery.ok, true);
      assert.equal(twilio.accepted.length, 1, 'the phone gets one message');
      const code = codeIn(twilio.accepted[0]?.form.get('Body'));
      assert.equal(json(await refusedApi.check({ verification_id: v.id, code })).verified, true);
    } finally {
      await gate.close();
    }
  });

  // Issue 5, item 6: for each carrier fault, what the API reports and what the phone receives.
  const FAULTS: Array<[string, TwilioFakeReply, RegExp]> = [
    ['a timeout', { kind: 'hang' }, /no answer within 300 ms|timed? ?out/i],
    ['a 500', { kind: 'server_error', status: 500 }, /500/],
    ['a 502', { kind: 'server_error', status: 502 }, /502/],
    ['a 503 with Retry-After', { kind: 'server_error', status: 503, retryAfter: '1' }, /503/],
    ['a 429 with Retry-After', { kind: 'rate_limited', retryAfter: '1' }, /429/],
    ['a malformed answer', { kind: 'malformed' }, /./],
  ];
  for (const [fault, reply, words] of FAULTS) {
    test(`${fault}: pending, not handed over, saying why; the retry delivers the code once`, async () => {
      twilio.accepted.length = 0;
      twilio.reply(reply);
      const v = await send({ phone: nextPhone() });
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, false);
      assert.equal(v.delivery.error_code, null);
      assert.match(v.delivery.error_message ?? '', /^Not handed over yet: attempt 1 failed/);
      assert.match(v.delivery.error_message ?? '', words);
      assert.equal(twilio.accepted.length, 0, 'nothing reached the phone yet');

      clock.advance(1000); // past the first backoff step and the carrier's Retry-After
      assert.equal(await t.services.dispatcher.runDue(), 1);
      const after = await read(v.id);
      assert.equal(after.delivery.ok, true);
      assert.equal(after.delivery.error_message, null);
      assert.equal(twilio.accepted.length, 1, 'the phone gets one message');
      const code = codeIn(twilio.accepted[0]?.form.get('Body'));
      assert.equal(json(await api.check({ verification_id: v.id, code })).verified, true);
      clock.advance(60_000);
      assert.equal(await t.services.dispatcher.runDue(), 0, 'nothing is left to send again');
      assert.equal(twilio.accepted.length, 1);
    });
  }

  test('a definitive rejection is never retried', async () => {
    twilio.reply({ kind: 'error', code: 21211 });
    const v = await send({ phone: nextPhone() });
    assert.equal(v.status, 'undelivered');
    assert.equal(v.delivery.error_code, 'destination_rejected');
    assert.equal(await findJob(t.store.db, v.id), undefined);
    clock.advance(60_000);
    await t.services.dispatcher.runDue();
    assert.equal(twilio.requests.length, 1);
  });

  test('retries stop inside the code lifetime: then undelivered, provider_error, saying so', async () => {
    // Exactly as many failures as attempts fit: were there a ninth attempt, it would succeed and show.
    twilio.reply(...Array.from({ length: 8 }, () => ({ kind: 'server_error', status: 503 }) as const));
    const v = await send({ phone: nextPhone(), ttl_seconds: 60 });
    const expiresAt = Date.parse(v.expires_at);
    while (await findJob(t.store.db, v.id)) {
      const job = await findJob(t.store.db, v.id);
      assert.ok(job && job.next_attempt_at < expiresAt, 'no attempt is scheduled at or past expiry');
      clock.set(job.next_attempt_at);
      await t.services.dispatcher.runDue();
    }
    const after = await read(v.id);
    assert.equal(after.status, 'undelivered');
    assert.equal(after.delivery.error_code, 'provider_error');
    assert.match(after.delivery.error_message ?? '', /^Gave up after \d+ failed hand-over attempt\(s\)/);
    // Attempts at 0, 0.5, 1.5, 3.5, 7.5, 15.5, 30.5 and 45.5 s (half of each capped step); the ninth would
    // come at 60.5 s, past the code's 60 s.
    assert.equal(twilio.requests.length, 8);
    assert.equal((await kinds(v.id)).at(-1), 'gave_up');
  });

  test('a code canceled or superseded before its retry is not sent again; its job is gone', async () => {
    twilio.reply({ kind: 'server_error', status: 503 }, { kind: 'server_error', status: 503 });
    const phone = nextPhone();
    const canceled = await send({ phone: nextPhone() });
    await api.cancel(canceled.id);
    const superseded = await send({ phone });
    await send({ phone });
    clock.advance(60_000);
    await t.services.dispatcher.runDue();
    assert.equal(await findJob(t.store.db, canceled.id), undefined);
    assert.equal(await findJob(t.store.db, superseded.id), undefined);
    // Two failed first attempts and the newer code's hand-over; nothing after.
    assert.equal(twilio.requests.length, 3);
  });

  test('the sweep deletes the job of a code canceled while its retry waited, before the retry is due', async () => {
    twilio.reply({ kind: 'server_error', status: 503 });
    const v = await send({ phone: nextPhone() });
    assert.ok(await findJob(t.store.db, v.id));
    await api.cancel(v.id);
    assert.equal(await t.services.dispatcher.dropUnwanted(), 1);
    assert.equal(await findJob(t.store.db, v.id), undefined, 'its sealed code is gone at once');
  });

  test('the send answers at its deadline while the carrier is slow; the hand-over completes after', async () => {
    const slow = await slowProcess();
    try {
      twilio.reply({ kind: 'hold' });
      // The carrier answers only when released, after the response: the response cannot have waited for it.
      const res = await slow.api.send({ phone: nextPhone(), channel: 'sms' });
      assert.equal(res.statusCode, 201);
      const v = json<Verification>(res);
      assert.equal(v.status, 'pending');
      assert.equal(v.delivery.ok, false);
      await eventually('the hand-over held at the carrier', () => twilio.held() === 1);
      twilio.release();
      await slow.services.dispatcher.drain();
      assert.equal((await read(v.id)).delivery.ok, true);
      assert.equal(twilio.requests.length, 1);
    } finally {
      await slow.close();
    }
  });

  test('two dispatchers on one database hand each due job over exactly once', async () => {
    const other = anotherProcess();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      twilio.reply({ kind: 'server_error', status: 503 });
      ids.push((await send({ phone: nextPhone() })).id);
    }
    twilio.requests.length = 0;
    clock.advance(500);
    const [a, b] = await Promise.all([t.services.dispatcher.runDue(), other.dispatcher.runDue()]);
    assert.equal(a + b, 8);
    assert.equal(twilio.requests.length, 8);
    assert.equal(new Set(twilio.requests.map((r) => r.form.get('To'))).size, 8);
    for (const id of ids) assert.equal((await read(id)).delivery.ok, true);
  });

  test('a job held by a live attempt is not taken; once its lease has run out, another process takes it', async () => {
    const other = anotherProcess();
    const slow = await slowProcess();
    try {
      twilio.reply({ kind: 'hold' });
      const v = json<Verification>(await slow.api.send({ phone: nextPhone(), channel: 'sms' }));
      // As if the sending process hung mid-hand-over: its lease is still running, so nobody else starts one.
      assert.equal(await other.dispatcher.runDue(), 0);
      clock.advance(slow.services.dispatcher.leaseMs);
      assert.equal(await other.dispatcher.runDue(), 1);
      assert.equal((await read(v.id)).delivery.ok, true);
    } finally {
      twilio.release();
      await slow.close();
    }
  });

  test('fail-over: a transient failure moves the next attempt to another carrier account, same channel', async () => {
    const s = t.services;
    const ws = await s.workspaces.createWorkspace({ name: 'Two carriers' }, OPERATOR);
    await s.fraud.setSettings(ws.id, { range_limit: 1000 }, OPERATOR);
    const primary = await s.carriers.addAccount(
      {
        workspaceId: ws.id,
        type: 'twilio',
        credentials: TWILIO,
        baseUrl: twilio.baseUrl,
      },
      OPERATOR,
    );
    const second = await s.carriers.addAccount(
      {
        workspaceId: ws.id,
        type: 'twilio',
        credentials: { ...TWILIO, authToken: 'backup-token-backup-token-000000' },
        baseUrl: backup.baseUrl,
      },
      OPERATOR,
    );
    await s.workspaces.addNumber({ workspaceId: ws.id, number: SENDER, carrierId: primary.id }, OPERATOR);
    // A number of the development provider never takes over from a carrier.
    await s.workspaces.addNumber({ workspaceId: ws.id, number: '+61491570158' }, OPERATOR);
    await s.workspaces.addNumber(
      { workspaceId: ws.id, number: BACKUP_SENDER, carrierId: second.id },
      OPERATOR,
    );
    const twoApi = client(t.app, (await s.keys.createKey({ workspaceId: ws.id, name: 'k' }, OPERATOR)).key);

    twilio.reply({ kind: 'server_error', status: 503 });
    const res = await twoApi.send({ phone: nextPhone(), channel: 'sms' });
    const v = json<Verification>(res);
    assert.match(v.delivery.error_message ?? '', /attempt 2 \(from \+61491570157\)/);
    clock.advance(500);
    await s.dispatcher.runDue();
    assert.equal(twilio.requests.length, 1);
    assert.equal(backup.requests.length, 1);
    assert.equal(backup.requests[0]?.form.get('From'), BACKUP_SENDER);
    assert.match(backup.requests[0]?.path ?? '', /Messages\.json$/, 'still an SMS');
    const after = json<Verification>(await twoApi.get(v.id));
    assert.equal(after.delivery.ok, true);
    assert.equal(after.delivery.from_number, BACKUP_SENDER);

    // A call fails over as a call.
    twilio.reply({ kind: 'server_error', status: 503 });
    const call = json<Verification>(await twoApi.send({ phone: nextPhone(), channel: 'voice' }));
    clock.advance(500);
    await s.dispatcher.runDue();
    assert.equal(backup.requests.length, 2);
    assert.match(backup.requests[1]?.path ?? '', /Calls\.json$/, 'still a call');
    assert.equal(json<Verification>(await twoApi.get(call.id)).delivery.from_number, BACKUP_SENDER);
  });
});
