// The sends of one turn judged together (src/verification/send-batch.ts: on PostgreSQL one transaction for a turn's
// sends, where each was a transaction of its own; on SQLite, and where a webhook event must commit with the send,
// each is judged alone). Whatever the store, a burst of sends of every kind answers each as alone: fresh numbers get
// their codes; a number sent to twice keeps one pending code, its newer; a number past its guess ceiling, one whose
// send window is full and one of a blocked range are refused, with what a refusal leaves; a test key's send takes
// its own path. On PostgreSQL a burst commits in a few transactions, not one a send; and two processes sending to
// the same numbers in opposite orders at once never wait for each other in a circle.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Problem, Verification } from '../helpers/api-types.js';
import { type Client, json, type TestApp } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import {
  assertEveryStatus,
  clockedApp,
  liveAndTestClients,
  sendOk,
  twoProcessSuite,
} from '../helpers/verification.js';

describe('sends judged in a turn', () => {
  let t: TestApp;
  let live: Client;
  let testMode: Client;
  let workspaceId: string;

  before(async () => {
    ({ t } = await clockedApp());
    // The pumping guard at its default (10 numbers of a range in 10 minutes), so a range can be blocked.
    ({
      workspaceId,
      live,
      test: testMode,
    } = await liveAndTestClients(t, { name: 'Acme', pumpingGuard: 'default' }));
  });
  after(() => t.close());

  const rowsOf = (phone: string) =>
    t.store.db
      .selectFrom('verifications')
      .select(['id', 'status', 'seq', 'mode'])
      .where('workspace_id', '=', workspaceId)
      .where('phone', '=', phone)
      .orderBy('seq')
      .execute();
  const refusedOf = (phone: string) =>
    t.store.db.selectFrom('refused_sends').select('reason').where('phone', '=', phone).execute();
  const kindsOf = async (id: string) =>
    (await t.services.verifications.inspect(workspaceId, id)).events.map((e) => e.kind);

  test('one burst of every kind of send: each answered as it would be alone', async () => {
    // Fresh numbers, each in a range of its own (the last three digits are the range's numbers).
    const fresh = Array.from({ length: 6 }, (_, i) => `+6141270${i}001`);
    const twice = '+61412710001';
    // Past its guess ceiling: 20 failures in the hour, recorded as the service records them.
    const ceiling = '+61412720001';
    const now = Date.now();
    await t.store.db
      .insertInto('guess_failures')
      .values(
        Array.from({ length: 20 }, (_, i) => ({ workspace_id: workspaceId, phone: ceiling, at: now - i })),
      )
      .execute();
    // Its send window full: the workspace's five sends in ten minutes, made one by one.
    const full = '+61412730001';
    for (let i = 0; i < 5; i++) await sendOk(live, { phone: full, channel: 'sms' });
    // A range the guard blocked: ten numbers sent to, the eleventh refused (and the block written).
    const range = '+61412740';
    for (let i = 0; i < 10; i++) await sendOk(live, { phone: `${range}${String(i).padStart(3, '0')}` });
    assert.equal((await live.send({ phone: `${range}010`, channel: 'sms' })).statusCode, 403);
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(block?.refused, 1);
    const inBlocked = `${range}500`;
    const rehearsal = '+61412750001';

    const asks: { api: Client; phone: string }[] = [
      ...fresh.map((phone) => ({ api: live, phone })),
      { api: live, phone: twice },
      { api: live, phone: ceiling },
      { api: live, phone: twice },
      { api: live, phone: full },
      { api: live, phone: inBlocked },
      { api: testMode, phone: rehearsal },
    ];
    const replies = await Promise.all(asks.map(({ api, phone }) => api.send({ phone, channel: 'sms' })));
    const statuses = replies.map((r) => r.statusCode);
    assert.deepEqual(
      statuses,
      [201, 201, 201, 201, 201, 201, 201, 429, 201, 429, 403, 201],
      statuses.join(','),
    );

    for (const [i, phone] of fresh.entries()) {
      const v = json<Verification>(replies[i] ?? assert.fail('no reply'));
      assert.equal(v.status, 'pending');
      assert.deepEqual(
        (await rowsOf(phone)).map((r) => [r.status, Number(r.seq)]),
        [['pending', 1]],
      );
      assert.deepEqual(await kindsOf(v.id), ['created', 'handed_over']);
    }
    // Twice in one burst: the second judged after the first, which it supersedes.
    const sentTwice = await rowsOf(twice);
    assert.deepEqual(
      sentTwice.map((r) => r.status),
      ['canceled', 'pending'],
    );
    assert.ok(Number(sentTwice[1]?.seq) > Number(sentTwice[0]?.seq), 'the newer has the higher ordinal');

    const ceilingRefusal = json<Problem>(replies[7] ?? assert.fail('no reply'));
    assert.equal(ceilingRefusal.code, 'rate_limited');
    assert.deepEqual(await rowsOf(ceiling), []);
    assert.deepEqual(await refusedOf(ceiling), [{ reason: 'guess_ceiling' }]);

    const windowRefusal = json<Problem>(replies[9] ?? assert.fail('no reply'));
    assert.equal(windowRefusal.code, 'rate_limited');
    assert.match(windowRefusal.detail ?? '', /At most 5 codes/);
    assert.equal((await rowsOf(full)).length, 5, 'nothing of the refused send is kept');

    const blocked = json<Problem>(replies[10] ?? assert.fail('no reply'));
    assert.equal(blocked.code, 'destination_blocked');
    assert.deepEqual(await rowsOf(inBlocked), []);
    const [counted, ...more] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal(more.length, 0, 'the block in force refused it; no other was written');
    assert.equal(counted?.refused, 2);

    assert.deepEqual(
      (await rowsOf(rehearsal)).map((r) => [r.status, r.mode]),
      [['pending', 'test']],
    );
  });

  test('40 sends at once: on PostgreSQL committed by a few transactions, not one each', async (c) => {
    if (TEST_STORE !== 'postgres')
      return c.skip('PostgreSQL: SQLite commits a turn’s writes together already');
    const phones = Array.from({ length: 40 }, (_, i) => `+61412${760 + i}001`);
    const replies = await Promise.all(phones.map((phone) => live.send({ phone, channel: 'sms' })));
    assertEveryStatus(replies, 201);
    // The transaction that inserted a row is its xmin: alone, 40 sends were 40 of them.
    const { rows } = await sql<{ n: number }>`select count(distinct xmin::text)::int as n from verifications
      where phone in (${sql.join(phones)})`.execute(t.store.db);
    const transactions = rows[0]?.n ?? 0;
    assert.ok(transactions >= 1 && transactions <= 10, `transactions for 40 sends: ${transactions}`);
  });
});

describe('sends judged in a turn, by two processes on one database', () => {
  const s = twoProcessSuite();

  test('each sends to the same 24 numbers in the opposite order while one number is locked: all sent once it is free', async (c) => {
    if (TEST_STORE !== 'postgres') return c.skip('PostgreSQL: SQLite has one writer and no locks to order');
    const { one, apis, workspaceId } = s;
    const phones = Array.from({ length: 24 }, (_, i) => `+614127900${String(i).padStart(2, '0')}`);
    const middle = phones[12] ?? '';
    // The middle number's lock row exists once it has been sent to.
    await sendOk(apis[0], { phone: middle, channel: 'sms' });
    // A third party holds the middle number's lock, so each process takes the locks before it in its own order and
    // waits there. In the order asked (the first process from the first number, the second from the last), each
    // would then hold what the other waits for: a deadlock, one batch failed. In the order of their keys, the same
    // in both, one waits behind the other.
    const holder = new pg.Client({ connectionString: one.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select seq from phone_locks where workspace_id = $1 and phone = $2 for update', [
        workspaceId,
        middle,
      ]);
      const asks = [
        ...phones.map((phone) => ({ api: apis[0], phone })),
        ...phones.map((phone) => ({ api: apis[1], phone })).reverse(),
      ];
      const replying = Promise.all(asks.map(({ api, phone }) => api.send({ phone, channel: 'sms' })));
      await waitForRowLockWaiters(holder, 2);
      await holder.query('commit');
      const replies = await replying;
      assertEveryStatus(replies, 201);
    } finally {
      await holder.end();
    }
    // Every number: its sends in order, the newest pending.
    const rows = await one.store.db
      .selectFrom('verifications')
      .select(['phone', 'status'])
      .where('phone', 'in', phones)
      .execute();
    const pending = rows.filter((r) => r.status === 'pending').map((r) => r.phone);
    assert.deepEqual(pending.sort(), [...phones].sort());
    assert.equal(rows.length, 49);
  });
});

/**
 * Until `count` sessions wait for a row's lock (the processes' batches, stopped at the held number). `client` is in
 * a transaction, which reads the activity view's snapshot of its first look unless cleared.
 */
async function waitForRowLockWaiters(client: pg.Client, count: number): Promise<void> {
  await eventually(`${count} sessions waiting for a number's lock`, async () => {
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return (rows[0]?.n ?? 0) >= count;
  });
}
