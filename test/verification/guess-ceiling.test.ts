// Issue 12, item 1: a failed-guess ceiling per destination number, across verifications (NIST SP 800-63B: a new
// code must not reset the count of failed attempts). Once a number has had `guess_limit` (default 20) failed checks
// within `guess_window_seconds` (default 3600, a sliding window) in a workspace, every check of it (the right code
// too, spending no attempt) and every send to it answers 429 rate_limited with Retry-After until the oldest of those
// failures leaves the window. Another number, or the same number in another workspace, is unaffected.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import { WORKSPACE_COMMANDS } from '../../src/cli/workspace-commands.js';
import type { Check, Problem } from '../helpers/api-types.js';
import { type Client, client, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertProblem, clockedApp, verificationApi, wrongCode } from '../helpers/verification.js';

const SECOND = 1000;
const HOUR = 3_600_000;

/** A 429 rate_limited for the guess ceiling: Retry-After header and retry_after agree; returns the seconds. */
function assertCeiling(res: LightMyRequestResponse, label = ''): number {
  const problem = assertProblem(res, 429, 'rate_limited', undefined, label) as Problem;
  const header = String(res.headers['retry-after']);
  assert.match(header, /^[1-9]\d*$/, `${label} Retry-After is whole seconds`);
  assert.equal(problem.retry_after, Number(header), `${label} retry_after repeats Retry-After`);
  assert.match(problem.detail, /failed checks/, `${label} the detail names the ceiling`);
  return Number(header);
}

describe('guess ceiling: failed checks per number, across its verifications', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  let workspaceId = '';
  const { fresh, check, read } = verificationApi(() => ({ api, services: t.services }));

  before(async () => {
    ({ t, clock } = await clockedApp());
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    // Many codes to one number: the send limit must not be what refuses them.
    await t.services.workspaces.setLimits({ workspaceId, limits: { send_limit: 100 } }, OPERATOR);
  });
  after(() => t.close());

  /** Failed checks of the number stored for the ceiling. */
  const failuresOf = async (phone: string, ws = workspaceId) =>
    (
      await t.store.db
        .selectFrom('guess_failures')
        .select('at')
        .where('workspace_id', '=', ws)
        .where('phone', '=', phone)
        .execute()
    ).length;

  /**
   * `n` wrong checks of `phone`, one a second, over as many codes as they take (10 attempts each): returns the last
   * code's verification id and code, still pending when its budget is not spent.
   */
  async function failChecks(phone: string, n: number) {
    let current = await fresh(phone, { max_attempts: 10, ttl_seconds: 900 });
    let left = 10;
    for (let i = 0; i < n; i++) {
      if (left === 0) {
        current = await fresh(phone, { max_attempts: 10, ttl_seconds: 900 });
        left = 10;
      }
      const res = await check({ verification_id: current.v.id, code: wrongCode(current.code) });
      assert.equal(res.verified, false);
      left -= 1;
      clock.advance(SECOND);
    }
    return current;
  }

  test('20 failed checks in an hour over three codes: the 21st check, with the right code, is 429 and spends nothing', async () => {
    const phone = '+61412500001';
    const firstAt = clock.now();
    // 19 failures over two codes, then a third code (a send is still allowed) and its first wrong check: 20.
    await failChecks(phone, 19);
    const last = await fresh(phone, { max_attempts: 10, ttl_seconds: 900 });
    assert.equal((await check({ verification_id: last.v.id, code: wrongCode(last.code) })).attempts, 1);
    assert.equal(await failuresOf(phone), 20);
    const events = (await t.services.verifications.inspect(workspaceId, last.v.id)).events.length;

    clock.advance(SECOND);
    const refused = await api.check({ verification_id: last.v.id, code: last.code });
    // Until the first failure leaves the hour.
    assert.equal(assertCeiling(refused), Math.ceil((firstAt + HOUR - clock.now()) / SECOND));
    assert.match(json<Problem>(refused).detail, /at most 20 failed checks in an hour/);
    const after = await read(last.v.id);
    assert.equal(after.status, 'pending', 'the right code was refused too');
    assert.equal(after.attempts, 1, 'no attempt was spent');
    assert.equal((await t.services.verifications.inspect(workspaceId, last.v.id)).events.length, events);
    // By phone, with a wrong code, and against the finished codes of the number: all refused alike.
    assertCeiling(await api.check({ phone, code: last.code }));
    assertCeiling(await api.check({ verification_id: last.v.id, code: wrongCode(last.code) }));
    assert.equal(await failuresOf(phone), 20, 'refused checks are not failures');
    assert.equal((await read(last.v.id)).attempts, 1);
  });

  test('a send to a number past its ceiling is 429 too; another number, and the number in another workspace, are not', async () => {
    const phone = '+61412500002';
    const firstAt = clock.now();
    await failChecks(phone, 20);
    const refused = await api.send({ phone, channel: 'sms' });
    assert.equal(assertCeiling(refused), Math.ceil((firstAt + HOUR - clock.now()) / SECOND));
    const stored = await t.store.db
      .selectFrom('verifications')
      .select('id')
      .where('phone', '=', phone)
      .execute();
    assert.equal(stored.length, 2, 'the refused send stored nothing');

    const other = await fresh('+61412500003');
    assert.equal((await check({ verification_id: other.v.id, code: other.code })).verified, true);

    const elsewhere = await seedWorkspace(t.services, { name: 'Other' });
    const otherApi = client(t.app, elsewhere.key);
    const sent = await otherApi.send({ phone });
    assert.equal(sent.statusCode, 201, sent.body);
    const wrong = await otherApi.check({ verification_id: json(sent).id, code: '000000' });
    assert.equal(wrong.statusCode, 200, wrong.body);
  });

  test('the window slides: when the oldest failure leaves the hour one more check is judged, then 429 again', async () => {
    const phone = '+61412500004';
    const firstAt = clock.now();
    await failChecks(phone, 20);
    assert.equal(
      assertCeiling(await api.send({ phone })),
      Math.ceil((firstAt + HOUR - clock.now()) / SECOND),
    );

    // A millisecond before the first failure is an hour old, still refused; at that moment, allowed.
    clock.set(firstAt + HOUR - 1);
    assert.equal(assertCeiling(await api.send({ phone })), 1);
    clock.set(firstAt + HOUR);
    // 19 failures are left in the hour: one wrong check is judged, and the 20th in the window closes it again.
    const next = await fresh(phone, { max_attempts: 10 });
    assert.equal((await check({ verification_id: next.v.id, code: wrongCode(next.code) })).attempts, 1);
    const again = await api.check({ verification_id: next.v.id, code: next.code });
    // The second failure (made a second after the first) now keeps the ceiling reached.
    assert.equal(assertCeiling(again), 1);

    // A whole hour later every failure has left: the right code verifies.
    clock.advance(HOUR);
    const ok = await fresh(phone);
    assert.equal((await check({ verification_id: ok.v.id, code: ok.code })).verified, true);
  });

  test('a right code spends none of the budget: 19 failures, any number of successes, then exactly one failure more', async () => {
    const phone = '+61412500005';
    await failChecks(phone, 19);
    for (let i = 0; i < 5; i++) {
      const ok = await fresh(phone);
      assert.equal((await check({ verification_id: ok.v.id, code: ok.code })).verified, true);
    }
    assert.equal(await failuresOf(phone), 19);
    const last = await fresh(phone, { max_attempts: 10 });
    assert.equal((await check({ verification_id: last.v.id, code: wrongCode(last.code) })).attempts, 1);
    assertCeiling(await api.check({ verification_id: last.v.id, code: last.code }));
  });

  test('the setting changed through the service takes effect on the next check, and is refused out of range', async () => {
    const phone = '+61412500006';
    await t.services.workspaces.setLimits(
      {
        workspaceId,
        limits: { guess_limit: 3, guess_window_seconds: 60 },
      },
      OPERATOR,
    );
    try {
      const v = await failChecks(phone, 3);
      const refused = await api.check({ verification_id: v.v.id, code: v.code });
      assert.ok(assertCeiling(refused) <= 60);
      assert.match(json<Problem>(refused).detail, /at most 3 failed checks in a minute/);
      // Raised: the same number may be judged again at once.
      await t.services.workspaces.setLimits({ workspaceId, limits: { guess_limit: 4 } }, OPERATOR);
      assert.equal((await check({ verification_id: v.v.id, code: v.code })).verified, true);
      // Bounds are the service's: 1..1000 and 60..86400, whole numbers.
      for (const limits of [
        { guess_limit: 0 },
        { guess_limit: 1001 },
        { guess_limit: 2.5 },
        { guess_limit: Number.NaN },
        { guess_window_seconds: 59 },
        { guess_window_seconds: 86_401 },
        { guess_window_seconds: Number.POSITIVE_INFINITY },
      ]) {
        await assert.rejects(
          t.services.workspaces.setLimits({ workspaceId, limits }, OPERATOR),
          (err: Error & { code?: string }) => err.code === 'invalid_request',
          JSON.stringify(limits),
        );
      }
      const { limits } = await t.services.workspaces.getSettings(workspaceId);
      assert.equal(limits.guess_limit, 4);
      assert.equal(limits.guess_window_seconds, 60);
    } finally {
      await t.services.workspaces.setLimits(
        {
          workspaceId,
          limits: { guess_limit: 20, guess_window_seconds: 3600 },
        },
        OPERATOR,
      );
    }
  });

  test('the setting changed through the CLI command takes effect on the next check', async () => {
    const command = WORKSPACE_COMMANDS['workspace limits'];
    assert.ok(command);
    const phone = '+61412500007';
    const set = (values: Record<string, string>) =>
      command.run(t.services, { workspace: workspaceId, ...values }, []);
    try {
      assert.deepEqual(await set({ 'guess-limit': '2', 'guess-window-seconds': '120' }), {
        workspace_id: workspaceId,
        send_limit: 100,
        send_window_seconds: 600,
        request_limit_per_minute: 6000,
        guess_limit: 2,
        guess_window_seconds: 120,
      });
      const v = await failChecks(phone, 2);
      assert.match(json<Problem>(await api.send({ phone })).detail, /at most 2 failed checks in 2 minutes/);
      assertCeiling(await api.check({ verification_id: v.v.id, code: v.code }));
    } finally {
      await set({ 'guess-limit': '20', 'guess-window-seconds': '3600' });
    }
  });

  describe('concurrency: no more than the ceiling is ever judged', () => {
    test('15 failures, then 10 concurrent wrong checks of a fresh code: exactly 5 are judged, 5 refused', async () => {
      const phone = '+61412500010';
      await failChecks(phone, 15);
      const v = await fresh(phone, { max_attempts: 10, ttl_seconds: 900 });
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => api.check({ verification_id: v.v.id, code: wrongCode(v.code) })),
      );
      const judged = replies.filter((r) => r.statusCode === 200).map((r) => json<Check>(r));
      const refused = replies.filter((r) => r.statusCode === 429);
      assert.equal(judged.length, 5, replies.map((r) => r.statusCode).join());
      for (const r of refused) assertCeiling(r);
      // The judged ones are totally ordered: each reports its own attempt.
      assert.deepEqual(judged.map((c) => c.attempts).sort(), [1, 2, 3, 4, 5]);
      assert.equal((await read(v.v.id)).attempts, 5);
      assert.equal(await failuresOf(phone), 20);
    });

    test('60 concurrent wrong checks by phone, with sends among them, over several codes: at most 20 judged, ever', async () => {
      const phone = '+61412500011';
      await fresh(phone, { max_attempts: 10, ttl_seconds: 900 });
      // Five digits against six-digit codes: certainly wrong, whichever code a check meets.
      const wrong = '12345';
      const replies = await Promise.all(
        Array.from({ length: 66 }, (_, i) =>
          i % 11 === 5
            ? api.send({ phone, max_attempts: 10, ttl_seconds: 900 })
            : api.check({ phone, code: wrong }),
        ),
      );
      for (const r of replies) assert.ok([200, 201, 429].includes(r.statusCode), r.body);
      for (const r of replies.filter((x) => x.statusCode === 429)) assertCeiling(r);

      /** Attempts over every code of the number: every one of them a wrong check judged. */
      const judged = async () => {
        const rows = await t.store.db
          .selectFrom('verifications')
          .select('attempts')
          .where('workspace_id', '=', workspaceId)
          .where('phone', '=', phone)
          .execute();
        return rows.reduce((sum, r) => sum + r.attempts, 0);
      };
      const burst = await judged();
      assert.ok(burst <= 20, `${burst} wrong checks judged`);
      assert.equal(await failuresOf(phone), burst, 'each judged failure counted once');

      // The rest of the budget, one at a time, wherever the burst stopped: the number ends at exactly 20.
      while ((await failuresOf(phone)) < 20) {
        const res = await api.check({ phone, code: wrong });
        if (res.statusCode === 200 && json<Check>(res).status === 'pending') continue;
        // The check that used up its code's attempts may also have been the number's last allowed failure: then
        // the ceiling is reached and a new code would rightly be refused (asserted below).
        if ((await failuresOf(phone)) >= 20) break;
        const sent = await api.send({ phone, max_attempts: 10 });
        assert.equal(sent.statusCode, 201, sent.body);
      }
      assert.equal(await judged(), 20);
      assertCeiling(await api.send({ phone }));
      assertCeiling(await api.check({ phone, code: wrong }));
    });
  });
});
