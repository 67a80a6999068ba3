// Dashboard issue item 4: the verification timeline. Every path of the state machine records its event, after
// the change and exactly once (racing expiries included); reading gives them in the order they happened.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { LATE_FAILURE_DELAY_MS } from '../../src/delivery/dev-provider.js';
import type { Db } from '../../src/store/database.js';
import { createTimeline, listEvents, type TimelineEvent } from '../../src/timeline/timeline.js';
import { expireIfDue } from '../../src/verification/repository.js';
import type { Verification } from '../helpers/api-types.js';
import {
  type Client,
  client,
  codeFor,
  createTestApp,
  json,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { sendOk, wrongCode } from '../helpers/verification.js';

describe('verification timeline events', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  let workspaceId: string;
  let numberSeq = 0;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
  });
  after(() => t.close());

  /** A number used by one test only ("+614123480NN"). */
  const freshNumber = () => `+6141234${String(8000 + ++numberSeq)}`;
  const eventsOf = (id: string): Promise<TimelineEvent[]> => listEvents(t.store.db, workspaceId, id);
  const kindsOf = async (id: string) => (await eventsOf(id)).map((e) => e.kind);
  const detailOf = async (id: string, kind: string) =>
    (await eventsOf(id)).find((e) => e.kind === kind)?.detail;

  async function fresh(body: Record<string, unknown> = {}): Promise<{ v: Verification; code: string }> {
    const phone = freshNumber();
    const v = await sendOk(api, { phone, ...body });
    return { v, code: v.delivery.ok ? await codeFor(t.services, phone) : '' };
  }

  test('a send handed over records created (channel, from, to) then handed_over (provider id)', async () => {
    const { v } = await fresh({ channel: 'sms' });
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over']);
    assert.deepEqual(await detailOf(v.id, 'created'), { channel: 'sms', from: '+61491570156', to: v.phone });
    assert.deepEqual(await detailOf(v.id, 'handed_over'), {
      provider: 'development',
      provider_id: v.delivery.provider_id,
      hand_over_attempt: 1,
    });
    const [created] = await eventsOf(v.id);
    assert.equal(created?.at, clock.now());
    assert.match(String(created?.id), /^evt_[0-9A-Za-z]{24}$/);
  });

  test('a send rejected at hand-over (…0999) records rejected with the error code and message', async () => {
    const v = await sendOk(api, { phone: '+61412340999' });
    assert.equal(v.status, 'undelivered');
    assert.deepEqual(await kindsOf(v.id), ['created', 'rejected']);
    const detail = await detailOf(v.id, 'rejected');
    assert.equal(detail?.error_code, 'destination_rejected');
    assert.equal(detail?.error_message, v.delivery.error_message);
    assert.match(String(detail?.error_message), /rejected/);
  });

  test('a late delivery failure (…0998) records delivery_failed once, when the report is applied', async () => {
    const v = await sendOk(api, { phone: '+61412340998' });
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over']);
    clock.advance(LATE_FAILURE_DELAY_MS);
    assert.equal(await t.services.devProvider.applyDueReports(), 1);
    assert.equal(await t.services.devProvider.applyDueReports(), 0);
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over', 'delivery_failed']);
    const detail = await detailOf(v.id, 'delivery_failed');
    assert.equal(detail?.error_code, 'delivery_failed');
    assert.equal(detail?.status, 'undelivered');
    assert.equal(detail?.provider_id, v.delivery.provider_id);
    const failed = (await eventsOf(v.id)).at(-1);
    assert.equal(failed?.at, clock.now());
  });

  test('wrong attempts record attempt with its number; the right code records verified', async () => {
    const { v, code } = await fresh();
    await api.check({ verification_id: v.id, code: wrongCode(code) });
    await api.check({ verification_id: v.id, code: wrongCode(code) });
    assert.equal(json(await api.check({ verification_id: v.id, code })).verified, true);
    // Checking again answers the same success and records nothing.
    await api.check({ verification_id: v.id, code });
    const events = await eventsOf(v.id);
    assert.deepEqual(
      events.map((e) => [e.kind, e.detail.attempt ?? null]),
      [
        ['created', null],
        ['handed_over', null],
        ['attempt', 1],
        ['attempt', 2],
        ['verified', 3],
      ],
    );
    assert.equal(events[2]?.detail.max_attempts, 5);
  });

  test('the last wrong attempt records the attempt and then failed; later checks record nothing', async () => {
    const { v, code } = await fresh({ max_attempts: 2 });
    await api.check({ verification_id: v.id, code: wrongCode(code) });
    assert.equal(json(await api.check({ verification_id: v.id, code: wrongCode(code) })).status, 'failed');
    await api.check({ verification_id: v.id, code });
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over', 'attempt', 'attempt', 'failed']);
    assert.deepEqual(await detailOf(v.id, 'failed'), { attempt: 2, max_attempts: 2 });
  });

  test('a cancel through the API records canceled (with the key) once, however often it is repeated', async () => {
    const { v } = await fresh();
    assert.equal(json(await api.cancel(v.id)).status, 'canceled');
    assert.equal(json(await api.cancel(v.id)).status, 'canceled');
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over', 'canceled']);
    assert.deepEqual(await detailOf(v.id, 'canceled'), { by: 'api', key_name: 'test key' });
  });

  test('a newer send records superseded on the old verification, naming the new one', async () => {
    const old = await fresh();
    const newer = await sendOk(api, { phone: old.v.phone });
    assert.deepEqual(await kindsOf(old.v.id), ['created', 'handed_over', 'superseded']);
    assert.deepEqual(await detailOf(old.v.id, 'superseded'), { by: newer.id });
    assert.deepEqual(await kindsOf(newer.id), ['created', 'handed_over']);
  });

  test('a newer send to a number whose code had run out records it expired (not superseded)', async () => {
    const old = await fresh({ ttl_seconds: 60 });
    clock.set(Date.parse(old.v.expires_at));
    const newer = await sendOk(api, { phone: old.v.phone });
    assert.deepEqual(await kindsOf(old.v.id), ['created', 'handed_over', 'expired']);
    assert.deepEqual(await detailOf(old.v.id, 'expired'), {
      expires_at: Date.parse(old.v.expires_at),
      superseded_by: newer.id,
    });
  });

  test('expiry noticed by a read records expired once; later reads record nothing more', async () => {
    const { v } = await fresh({ ttl_seconds: 60 });
    await api.get(v.id);
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over']);
    clock.set(Date.parse(v.expires_at));
    assert.equal(json(await api.get(v.id)).status, 'expired');
    assert.equal(json(await api.get(v.id)).status, 'expired');
    await api.check({ verification_id: v.id, code: '123456' });
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over', 'expired']);
    assert.deepEqual(await detailOf(v.id, 'expired'), { expires_at: Date.parse(v.expires_at) });
  });

  test('expiry persisted by the sweeper (expireDue) records expired once', async () => {
    const { v } = await fresh({ ttl_seconds: 60 });
    clock.set(Date.parse(v.expires_at) + 1);
    assert.ok((await t.services.verifications.expireDue()) >= 1);
    assert.equal(await t.services.verifications.expireDue(), 0);
    await api.get(v.id);
    assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over', 'expired']);
    const expired = (await eventsOf(v.id)).at(-1);
    assert.equal(expired?.at, clock.now());
  });

  test('racing expiries (reads, checks and sweeps of two apps on one database) record exactly one expired', async () => {
    const second = await createTestApp({ clock, dir: t.dir });
    try {
      const targets = await Promise.all([fresh({ ttl_seconds: 60 }), fresh({ ttl_seconds: 60 })]);
      const latest = Math.max(...targets.map(({ v }) => Date.parse(v.expires_at)));
      clock.set(latest);
      const api2 = client(
        second.app,
        (await t.services.keys.createKey({ workspaceId, name: 'second' }, OPERATOR)).key,
      );
      await Promise.all(
        targets.flatMap(({ v, code }) => [
          api.get(v.id),
          api2.get(v.id),
          api.check({ verification_id: v.id, code }),
          api2.check({ verification_id: v.id, code }),
          api2.cancel(v.id),
          t.services.verifications.expireDue(),
          second.services.verifications.expireDue(),
          t.services.verifications.inspect(workspaceId, v.id),
        ]),
      );
      for (const { v } of targets) {
        assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over', 'expired'], v.id);
      }
      // The statement itself: of many concurrent persists exactly one reports that it changed the row.
      const { v } = await fresh({ ttl_seconds: 60 });
      clock.set(Date.parse(v.expires_at));
      const dbs = [t.store.db, second.store.db];
      const changed = await Promise.all(
        Array.from({ length: 8 }, (_, i) => expireIfDue(dbs[i % 2] as Db, v.id, clock.now())),
      );
      assert.equal(changed.filter(Boolean).length, 1);
    } finally {
      await second.close();
    }
  });

  test('events of one verification are read in order, even within one millisecond', async () => {
    const { v, code } = await fresh();
    for (let i = 0; i < 3; i++) await api.check({ verification_id: v.id, code: wrongCode(code) });
    const events = await eventsOf(v.id);
    assert.ok(events.every((e) => e.at === clock.now()));
    assert.deepEqual(
      events.map((e) => e.detail.attempt ?? 0),
      [0, 0, 1, 2, 3],
    );
  });

  test('another workspace reads none of the events', async () => {
    const { v } = await fresh();
    const other = await seedWorkspace(t.services, { name: 'Other' });
    assert.deepEqual(await listEvents(t.store.db, other.workspaceId, v.id), []);
  });

  test('an event that cannot be written after the change is reported, never thrown', async () => {
    const failures: unknown[] = [];
    // Whichever way a statement reaches it (built per call, or compiled once and executed), the database fails.
    const gone = () => {
      throw new Error('database gone');
    };
    const broken = { insertInto: gone, getExecutor: gone, executeQuery: gone } as unknown as Db;
    const timeline = createTimeline({ db: broken, clock, warn: (err) => failures.push(err) });
    await timeline.recordAfter([{ verificationId: 'ver_x', workspaceId, kind: 'expired' }]);
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /database gone/);
  });
});
