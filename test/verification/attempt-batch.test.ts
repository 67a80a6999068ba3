// The checks of one turn judged together (src/verification/attempt-batch.ts: on PostgreSQL one transaction for a
// turn's checks, where each was a transaction of its own; on SQLite, and where a webhook event must commit with the
// attempt, each is judged alone). Whatever the store, a burst of checks of every kind judges each as alone: right
// codes verify, wrong ones spend an attempt and count against their number's ceiling (live only), a last wrong
// attempt fails its verification, a number past its ceiling is refused and spends nothing, and each leaves the
// timeline events it would alone. Two checks of one number in a burst read each other's failure. On PostgreSQL the
// burst is a few statements, not a transaction a check; and two processes judging the same numbers in opposite
// orders at once never wait for each other in a circle.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { numberLockKey } from '../../src/limits/guess-ceiling.js';
import type { Check, Problem, Verification } from '../helpers/api-types.js';
import { type Client, codeFor, json, statementsOf, type TestApp } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import {
  assertEveryStatus,
  clockedApp,
  liveAndTestClients,
  sendOk,
  twoProcessSuite,
  wrongCode,
} from '../helpers/verification.js';

interface Sent {
  v: Verification;
  code: string;
}

describe('checks judged in a turn', () => {
  let t: TestApp;
  let live: Client;
  let testMode: Client;
  let workspaceId: string;

  before(async () => {
    ({ t } = await clockedApp());
    ({ workspaceId, live, test: testMode } = await liveAndTestClients(t, { name: 'Acme' }));
  });
  after(() => t.close());

  const sendTo = async (api: Client, phone: string, extra: Record<string, unknown> = {}): Promise<Sent> => {
    const v = await sendOk(api, { phone, ...extra });
    return { v, code: await codeFor(t.services, phone) };
  };
  const failuresOf = async (phone: string) =>
    (
      await t.store.db
        .selectFrom('guess_failures')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('phone', '=', phone)
        .executeTakeFirstOrThrow()
    ).n;
  const kindsOf = async (id: string) =>
    (await t.services.verifications.inspect(workspaceId, id)).events.map((e) => e.kind);

  test('one burst of every kind of check: each judged as it would be alone', async () => {
    const right = await Promise.all(Array.from({ length: 6 }, (_, i) => sendTo(live, `+6141260000${i}`)));
    const wrong = await Promise.all(Array.from({ length: 6 }, (_, i) => sendTo(live, `+6141260010${i}`)));
    // One attempt only: its wrong code fails it.
    const last = await sendTo(live, '+61412600200', { max_attempts: 1 });
    // Past its ceiling: 20 failures in the hour, recorded as the service records them.
    const blocked = await sendTo(live, '+61412600300');
    const now = Date.now();
    await t.store.db
      .insertInto('guess_failures')
      .values(
        Array.from({ length: 20 }, (_, i) => ({
          workspace_id: workspaceId,
          phone: blocked.v.phone,
          at: now - i,
        })),
      )
      .execute();
    // A test-mode key's wrong code spends an attempt but never counts against a number's ceiling.
    const rehearsal = await sendTo(testMode, '+61412600400');

    const asks: { api: Client; sent: Sent; code: string }[] = [
      ...right.map((sent) => ({ api: live, sent, code: sent.code })),
      ...wrong.map((sent) => ({ api: live, sent, code: wrongCode(sent.code) })),
      { api: live, sent: last, code: wrongCode(last.code) },
      { api: live, sent: blocked, code: blocked.code },
      { api: testMode, sent: rehearsal, code: wrongCode(rehearsal.code) },
    ];
    const replies = await Promise.all(
      asks.map(({ api, sent, code }) => api.check({ verification_id: sent.v.id, code })),
    );
    const answers = replies.map((r, i) => {
      const expected = i === replies.length - 2 ? 429 : 200;
      assert.equal(r.statusCode, expected, r.body);
      return r.statusCode === 200 ? json<Check>(r) : undefined;
    });

    for (const [i, sent] of right.entries()) {
      assert.deepEqual(answers[i], {
        id: sent.v.id,
        status: 'verified',
        verified: true,
        verified_at: sent.v.created_at,
      });
      assert.equal((await t.services.verifications.inspect(workspaceId, sent.v.id)).verification.attempts, 1);
      assert.deepEqual(await kindsOf(sent.v.id), ['created', 'handed_over', 'verified']);
      assert.equal(await failuresOf(sent.v.phone), 0);
    }
    for (const [i, sent] of wrong.entries()) {
      assert.deepEqual(answers[right.length + i], {
        id: sent.v.id,
        status: 'pending',
        verified: false,
        attempts: 1,
        attempts_remaining: 4,
      });
      assert.deepEqual(await kindsOf(sent.v.id), ['created', 'handed_over', 'attempt']);
      assert.equal(await failuresOf(sent.v.phone), 1);
    }
    assert.deepEqual(answers[right.length + wrong.length], {
      id: last.v.id,
      status: 'failed',
      verified: false,
      attempts: 1,
      attempts_remaining: 0,
    });
    assert.deepEqual(await kindsOf(last.v.id), ['created', 'handed_over', 'attempt', 'failed']);

    const refusal = json<Problem>(replies.at(-2) ?? assert.fail('no reply'));
    assert.equal(refusal.code, 'rate_limited');
    const untouched = await t.services.verifications.inspect(workspaceId, blocked.v.id);
    assert.equal(untouched.verification.attempts, 0, 'a refused check spends nothing');
    assert.deepEqual(
      untouched.events.map((e) => e.kind),
      ['created', 'handed_over'],
    );
    assert.equal(await failuresOf(blocked.v.phone), 20);

    assert.deepEqual(answers.at(-1), {
      id: rehearsal.v.id,
      status: 'pending',
      verified: false,
      attempts: 1,
      attempts_remaining: 4,
    });
    assert.equal(
      (
        await t.store.db
          .selectFrom('guess_failures')
          .select('phone')
          .where('phone', '=', rehearsal.v.phone)
          .execute()
      ).length,
      0,
    );
  });

  test('two wrong checks of one number at its ceiling’s last failure, in one burst with others: one judged, one refused', async () => {
    const phone = '+61412600500';
    const first = await sendTo(live, phone, { max_attempts: 10 });
    const now = Date.now();
    await t.store.db
      .insertInto('guess_failures')
      .values(Array.from({ length: 19 }, (_, i) => ({ workspace_id: workspaceId, phone, at: now - i })))
      .execute();
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => sendTo(live, `+6141260060${i}`)));
    const replies = await Promise.all([
      live.check({ verification_id: first.v.id, code: wrongCode(first.code) }),
      ...others.map((o) => live.check({ verification_id: o.v.id, code: wrongCode(o.code) })),
      live.check({ verification_id: first.v.id, code: wrongCode(first.code) }),
    ]);
    const [a, ...rest] = replies;
    const b = rest.pop();
    assert.deepEqual([a?.statusCode, b?.statusCode].sort(), [200, 429], `${a?.body}\n${b?.body}`);
    for (const r of rest) assert.equal(r.statusCode, 200, r.body);
    assert.equal(await failuresOf(phone), 20);
    assert.equal((await t.services.verifications.inspect(workspaceId, first.v.id)).verification.attempts, 1);
  });

  test('40 concurrent wrong checks: on PostgreSQL a few statements, not a transaction each; on SQLite a few each', async () => {
    const sent = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sendTo(live, `+614126007${String(i).padStart(2, '0')}`)),
    );
    const statements = await statementsOf(t, async () => {
      const replies = await Promise.all(
        sent.map((s) => live.check({ verification_id: s.v.id, code: wrongCode(s.code) })),
      );
      assertEveryStatus(replies, 200);
    });
    // Alone, a check's judgement is two statements (the number's lock and the attempt) besides its admission and
    // its read, which turns share already.
    if (TEST_STORE === 'postgres') assert.ok(statements <= 16, `statements for 40 checks: ${statements}`);
    else assert.ok(statements >= 120, `statements for 40 checks: ${statements}`);
  });
});

describe('checks judged in a turn, by two processes on one database', () => {
  const s = twoProcessSuite();

  test('each checks the same 24 numbers in the opposite order while one number is locked: all judged once it is free', async (c) => {
    if (TEST_STORE !== 'postgres') return c.skip('PostgreSQL: SQLite has one writer and no locks to order');
    const { one, apis, workspaceId } = s;
    const phones = Array.from({ length: 24 }, (_, i) => `+614126008${String(i).padStart(2, '0')}`);
    const sent = await Promise.all(phones.map((phone) => sendOk(apis[0], { phone, max_attempts: 10 })));
    const codes = await Promise.all(phones.map((phone) => codeFor(one.services, phone)));
    // A third party holds the middle number's lock, so each process takes the locks before it in its own order
    // and waits there. In the order asked (the first process from the first number, the second from the last),
    // each would then hold what the other waits for: a deadlock, one batch failed. In the order of their keys,
    // the same in both, one waits behind the other.
    const middle = phones[12] ?? '';
    const key = numberLockKey(workspaceId, middle);
    const holder = new pg.Client({ connectionString: one.databaseUrl });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock($1::bigint)', [key]);
      const asks = [
        ...sent.map((v, i) => ({ api: apis[0], id: v.id, code: wrongCode(codes[i] ?? '') })),
        ...sent.map((v, i) => ({ api: apis[1], id: v.id, code: wrongCode(codes[i] ?? '') })).reverse(),
      ];
      const replying = Promise.all(asks.map(({ api, id, code }) => api.check({ verification_id: id, code })));
      await waitForLockWaiters(holder, 2);
      await holder.query('select pg_advisory_unlock($1::bigint)', [key]);
      const replies = await replying;
      assertEveryStatus(replies, 200);
    } finally {
      await holder.end();
    }
    const attempts = await one.store.db
      .selectFrom('verifications')
      .select('attempts')
      .where('phone', 'in', phones)
      .execute();
    assert.deepEqual([...new Set(attempts.map((r) => r.attempts))], [2]);
  });
});

/** Until `count` sessions wait for an advisory lock (the processes' batches, stopped at the held number). */
async function waitForLockWaiters(client: pg.Client, count: number): Promise<void> {
  await eventually(`${count} sessions waiting for a number's lock`, async () => {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
       where locktype = 'advisory' and not granted
         and database = (select oid from pg_database where datname = current_database())`,
    );
    return (rows[0]?.n ?? 0) >= count;
  });
}
