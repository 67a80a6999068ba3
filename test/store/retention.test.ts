// Retention (scale-out issue, item 7): finished verifications and outbox messages older than RETENTION_DAYS
// are deleted with their number locks; request counters go after two minutes; failed checks (the guess ceiling's)
// after a day, the longest window a workspace may set; pending codes are never deleted; several sweepers pruning
// at once share the work without errors or double counting.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServices } from '../../src/services.js';
import { GUESS_FAILURES_KEEP_MS } from '../../src/store/retention.js';
import { LIMIT_RANGES } from '../../src/workspaces/service.js';
import { answeredDuring } from '../helpers/answered-during.js';
import {
  client,
  codeFor,
  createTestApp,
  seedWorkspace,
  TEST_PUBLIC_URL,
  TEST_SECRET,
  type TestApp,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { TEST_STORE } from '../helpers/database.js';
import { insertRows } from '../helpers/verification-rows.js';

const DAY = 86_400_000;

describe('retention', () => {
  let clock: FakeClock;
  let t: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    api = client(t.app, (await seedWorkspace(t.services)).key);
  });
  after(() => t.close());

  const count = async (
    table: 'verifications' | 'outbox_messages' | 'phone_locks' | 'request_counters' | 'verification_events',
  ) =>
    Number(
      (
        await t.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('deletes finished verifications and their messages past the retention; keeps recent ones and pending codes', async () => {
    // Old: one verified, one left to expire, one still pending with a long life is impossible (TTL ≤ 900 s),
    // so "pending" past retention only exists until the sweeper records its expiry.
    const verified = (await api.send({ phone: '+61412380001', channel: 'sms' })).json() as { id: string };
    const code = await codeFor(t.services, '+61412380001');
    assert.equal((await api.check({ verification_id: verified.id, code })).json().verified, true);
    const expiring = (await api.send({ phone: '+61412380002' })).json() as { id: string };

    clock.advance(31 * DAY);
    const recent = (await api.send({ phone: '+61412380003' })).json() as { id: string };
    assert.equal(await count('verifications'), 3);
    assert.equal(await count('outbox_messages'), 3);

    // The unswept old code is still `pending` in storage: retention leaves it to the sweeper's expiry first.
    let pruned = await t.services.retention.prune();
    assert.equal(pruned.verifications, 1, 'only the finished old verification goes');
    assert.equal((await api.get(expiring.id)).statusCode, 200);

    await t.services.verifications.expireDue();
    pruned = await t.services.retention.prune();
    assert.equal(pruned.verifications, 1, 'the expired old verification goes once its expiry is recorded');

    assert.equal((await api.get(verified.id)).statusCode, 404);
    assert.equal((await api.get(expiring.id)).statusCode, 404);
    const kept = await api.get(recent.id);
    assert.equal(kept.statusCode, 200);
    assert.equal(kept.json().status, 'pending');
    assert.equal(await count('verifications'), 1);
    assert.equal(await count('outbox_messages'), 1, 'the old messages went with them');
    // SQLite keeps no lock rows: its one write lock already serialises every send (verification/repository.ts).
    assert.equal(
      await count('phone_locks'),
      TEST_STORE === 'postgres' ? 1 : 0,
      'only the recent number keeps its lock row',
    );
    const events = await t.store.db.selectFrom('verification_events').select('verification_id').execute();
    assert.ok(events.length > 0, 'the recent verification keeps its timeline');
    assert.deepEqual(
      [...new Set(events.map((e) => e.verification_id))],
      [recent.id],
      'old timelines went too',
    );
  });

  test('request counters older than two minutes are deleted; the current window is kept', async () => {
    await api.ping();
    clock.advance(5 * 60_000);
    await api.ping();
    assert.equal((await count('request_counters')) >= 2, true);
    await t.services.retention.prune();
    assert.equal(await count('request_counters'), 1);
  });

  test('pruning again finds nothing: idempotent', async () => {
    assert.deepEqual(await t.services.retention.prune(), {
      verifications: 0,
      outbox: 0,
      events: 0,
      phoneLocks: 0,
      requestCounters: 0,
      guessFailures: 0,
      rollups: 0,
      counts: 0,
      numbers: 0,
      idempotencyKeys: 0,
      audit: 0,
      webhookMessages: 0,
      webhookAttempts: 0,
      refusedSends: 0,
    });
  });

  test('several sweepers pruning the same database at once delete each row exactly once', async () => {
    const phones = Array.from({ length: 30 }, (_, i) => `+614123810${String(i).padStart(2, '0')}`);
    for (const phone of phones) {
      const sent = (await api.send({ phone })).json() as { id: string };
      assert.equal((await api.cancel(sent.id)).statusCode, 200);
    }
    clock.advance(31 * DAY);
    // Three services over the same database, as three processes would have.
    const sweepers = [
      t.services,
      ...[1, 2].map(() =>
        createServices({ store: t.store, secret: TEST_SECRET, clock, publicUrl: TEST_PUBLIC_URL }),
      ),
    ];
    const results = await Promise.all(sweepers.map((s) => s.retention.prune()));
    assert.equal(
      results.reduce((sum, r) => sum + r.verifications, 0),
      phones.length,
      'each of the 30 old canceled verifications deleted exactly once',
    );
    // The earlier test's recent code is old now too, but still stored as pending: never pruned as such.
    assert.equal(await count('verifications'), 1);
  });

  test("the overview's counts go a day after their hour is rolled up; the recent hour's stay", async () => {
    clock.advance(DAY);
    const recent = (await api.send({ phone: '+61412380099' })).json() as { id: string };
    const recentHour = Math.floor(clock.now() / 3_600_000) * 3_600_000;
    clock.advance(DAY + 2 * 3_600_000);
    await t.services.verifications.expireDue();
    await t.services.rollups.catchUp();
    assert.ok((await t.services.rollups.rolledBefore()) > recentHour, 'the recent hour is rolled up');
    assert.ok((await t.services.retention.prune()).counts > 0, "the old hours' counts deleted");
    const hours = await t.store.db.selectFrom('verification_counts').select('hour').execute();
    assert.deepEqual([...new Set(hours.map((h) => Number(h.hour)))], [recentHour]);
    assert.equal((await api.get(recent.id)).statusCode, 200);
  });
});

describe('retention in batches', () => {
  let clock: FakeClock;
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    const seeded = await seedWorkspace(t.services);
    api = client(t.app, seeded.key);
    workspaceId = seeded.workspaceId;
  });
  after(() => t.close());

  test('a request is answered while retention deletes 1,201 old verifications: a turn of the event loop before each batch of 500', async () => {
    const old = clock.now() - 40 * DAY;
    const rows = Array.from({ length: 1201 }, (_, i) => ({
      workspaceId,
      phone: `+6141239${String(i).padStart(4, '0')}`,
      createdAt: old + i,
      status: 'canceled' as const,
    }));
    await insertRows(t.store.db, rows);
    await t.services.phoneDirectory.catchUp();

    // Three batches of verifications, three of the directory's numbers.
    const pruned = await answeredDuring(api, () => t.services.retention.prune());
    assert.equal(pruned.verifications, 1201);
    assert.equal(pruned.numbers, 1201);
    const left = await t.store.db
      .selectFrom('verifications')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0);
  });

  test('more than 10,000 old verifications in one prune: retention keeps up with a busy installation', async () => {
    const old = clock.now() - 40 * DAY;
    await insertRows(
      t.store.db,
      Array.from({ length: 10_501 }, (_, i) => ({
        workspaceId,
        phone: `+614124${String(i).padStart(5, '0')}`,
        createdAt: old + i,
        status: 'verified' as const,
      })),
    );
    assert.equal((await t.services.retention.prune()).verifications, 10_501);
  });

  test("the pumping guard's numbers past its longest window go in batches, a request answered meanwhile", async () => {
    const old = clock.now() - 2 * DAY;
    for (let i = 0; i < 1201; i += 200)
      await t.store.db
        .insertInto('fraud_range_numbers')
        .values(
          Array.from({ length: Math.min(200, 1201 - i) }, (_, j) => ({
            workspace_id: workspaceId,
            phone: `+6141250${String(i + j).padStart(4, '0')}`,
            range_prefix: '+6141250',
            last_sent_at: old,
          })),
        )
        .execute();
    await t.store.committed();
    assert.equal((await answeredDuring(api, () => t.services.fraud.prune())).numbers, 1201);
  });
});

describe('retention of failed checks', () => {
  let clock: FakeClock;
  let t: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    api = client(t.app, (await seedWorkspace(t.services)).key);
  });
  after(() => t.close());

  const failures = async () =>
    Number(
      (
        await t.store.db
          .selectFrom('guess_failures')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('failed checks older than a day are deleted; newer ones, which a window may still count, are kept', async () => {
    assert.ok(
      GUESS_FAILURES_KEEP_MS >= LIMIT_RANGES.guess_window_seconds.max * 1000,
      'kept for at least the longest window a workspace may set',
    );
    const wrongCheck = async (phone: string) => {
      const sent = (await api.send({ phone, channel: 'sms', max_attempts: 3 })).json() as { id: string };
      const res = await api.check({ verification_id: sent.id, code: '12345' });
      assert.equal(res.json().verified, false);
    };
    await wrongCheck('+61412380101');
    await wrongCheck('+61412380101');
    clock.advance(GUESS_FAILURES_KEEP_MS - 60_000);
    await wrongCheck('+61412380102');
    assert.equal(await failures(), 3);
    clock.advance(60_000);
    assert.equal((await t.services.retention.prune()).guessFailures, 2);
    assert.equal(await failures(), 1);
  });
});
