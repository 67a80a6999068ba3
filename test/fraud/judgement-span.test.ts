// Which keys a judgement of the conversion signal reads (src/fraud/conversion.ts, createConversionJudge): a process's
// first judges every key; after it, only the keys of the finished sends created since the last judgement's finality
// horizon, unless the settings or an allow list changed, or FULL_JUDGEMENT_EVERY_MS passed. Each test names the
// rule it would catch broken.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { OPERATOR } from '../../src/audit/actor.js';
import { FULL_JUDGEMENT_EVERY_MS } from '../../src/fraud/conversion.js';
import { findConversions } from '../../src/fraud/conversion-repository.js';
import { CONVERSION_LOOKBACK_MS } from '../../src/fraud/rules.js';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { clockedApp } from '../helpers/verification.js';

const RANGE = '+61412345';
const OTHER = '+61412346';
const numberOf = (range: string, i: number) => `${range}${String(i).padStart(3, '0')}`;

describe('pumping guard: which keys a judgement reads', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  beforeEach(async () => {
    ({ t, clock } = await clockedApp());
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    // Ranges judged on their last 10 finished codes; the country signal off, so only the ranges are on trial.
    await t.services.fraud.setSettings(
      workspaceId,
      { conversion_sends: 10, country_conversion_percent: 0 },
      OPERATOR,
    );
  });
  afterEach(() => t.close());

  /** `count` sends to the range, none checked, a second apart; the ids. */
  async function sendTo(range: string, count: number, from = 0, ttl = 300): Promise<string[]> {
    const ids: string[] = [];
    for (let i = from; i < from + count; i++) {
      const res = await api.send({ phone: numberOf(range, i), channel: 'sms', ttl_seconds: ttl });
      assert.equal(res.statusCode, 201, res.body);
      ids.push((res.json() as { id: string }).id);
      clock.advance(1000);
    }
    return ids;
  }

  async function expireAll(): Promise<void> {
    clock.advance(901_000);
    await t.services.verifications.expireDue();
  }

  test('findConversions with changedFrom: only the keys of finished sends created since then', async () => {
    await sendTo(RANGE, 10);
    await expireAll();
    const between = clock.now();
    clock.advance(1000);
    await sendTo(OTHER, 10);
    await expireAll();
    const since = clock.now() - CONVERSION_LOOKBACK_MS;
    const ranges = async (changedFrom?: number) =>
      (await findConversions(t.store.db, { since, changedFrom })).map((c) => c.range).sort();
    assert.deepEqual(await ranges(), [RANGE, OTHER]);
    assert.deepEqual(await ranges(between), [OTHER]);
    // A key is judged on all its sends of the day, not only those since: OTHER's 10, RANGE's none.
    const [other] = await findConversions(t.store.db, { since, changedFrom: between });
    assert.equal(other?.judged, 10);
    assert.deepEqual(await ranges(clock.now()), []);
  });

  test('denseFrom: a key with N codes since then is ranked on those alone, the others on their day: the same answer', async () => {
    // RANGE: 4 codes two hours ago, then 12 in the last minutes (N is 10: dense). OTHER: 6, then 5 (sparse).
    await sendTo(RANGE, 4);
    await sendTo(OTHER, 6);
    await expireAll();
    clock.advance(2 * 3_600_000);
    const denseFrom = clock.now();
    await sendTo(RANGE, 12, 100);
    await sendTo(OTHER, 5, 100);
    await expireAll();
    const since = clock.now() - CONVERSION_LOOKBACK_MS;
    const byRange = async (span: Parameters<typeof findConversions>[1]) =>
      (await findConversions(t.store.db, span)).sort((a, b) => a.range.localeCompare(b.range));
    const whole = await byRange({ since });
    assert.deepEqual(
      whole.map((c) => [c.range, c.judged]),
      [
        [RANGE, 10],
        [OTHER, 10],
      ],
    );
    assert.deepEqual(await byRange({ since, denseFrom }), whole);
  });

  test('a country with fewer than N codes in the last hour is judged on its codes of the day', async () => {
    // The country judged on its last 10, the ranges not at all.
    await t.services.fraud.setSettings(
      workspaceId,
      { conversion_percent: 0, country_conversion_sends: 10, country_conversion_percent: 10 },
      OPERATOR,
    );
    await sendTo(RANGE, 6);
    await expireAll();
    clock.advance(2 * 3_600_000);
    await sendTo(OTHER, 4);
    await expireAll();
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, country: 'AU' }]);
  });

  test('a code pending through a judgement, created before its start, is judged when it finishes', async () => {
    // One code with the longest life and nine with the shortest, all more than the settling time (5 minutes)
    // before the judgement: only the pending one's life keeps the range among those judged again.
    const [first] = await sendTo(RANGE, 1, 0, 900);
    await sendTo(RANGE, 9, 1, 60);
    clock.advance(390_000);
    await t.services.verifications.expireDue();
    const { status } = await t.store.db
      .selectFrom('verifications')
      .select('status')
      .where('id', '=', String(first))
      .executeTakeFirstOrThrow();
    assert.equal(status, 'pending');
    assert.deepEqual(await t.services.fraud.judgeConversion(), [], '9 finished, 1 pending: nothing to judge');
    // Past its expiry, well within FULL_JUDGEMENT_EVERY_MS of the first judgement.
    clock.advance(501_000);
    await t.services.verifications.expireDue();
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, range: RANGE }]);
  });

  test('a settings change, even in the same millisecond as the judgement before, makes the next judgement whole', async () => {
    await sendTo(RANGE, 10);
    await expireAll();
    // Off for now: judged, not blocked.
    await t.services.fraud.setSettings(workspaceId, { conversion_percent: 0 }, OPERATOR);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    // On again, the clock not moved: no send finished since, so only the settings' change can make it whole.
    await t.services.fraud.setSettings(workspaceId, { conversion_percent: 10 }, OPERATOR);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, range: RANGE }]);
  });

  test('an allow-list entry removed makes the next judgement whole', async () => {
    await t.services.fraud.allow(workspaceId, RANGE, OPERATOR);
    await sendTo(RANGE, 10);
    await expireAll();
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    await t.services.fraud.disallow(workspaceId, RANGE, OPERATOR);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, range: RANGE }]);
  });

  test('what no rule foresaw (codes finished behind the service’s back) is judged within FULL_JUDGEMENT_EVERY_MS', async () => {
    const ids = await sendTo(RANGE, 10);
    await expireAll();
    // Verified, all of them: nothing to block.
    await sql`UPDATE verifications SET status = 'verified' WHERE id IN (${sql.join(ids)})`.execute(
      t.store.db,
    );
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    // A restore, say, turns them back: no send finished, so the next judgements leave the range alone…
    await sql`UPDATE verifications SET status = 'expired' WHERE id IN (${sql.join(ids)})`.execute(t.store.db);
    clock.advance(60_000);
    assert.deepEqual(await t.services.fraud.judgeConversion(), []);
    // …until the next whole judgement.
    clock.advance(FULL_JUDGEMENT_EVERY_MS);
    assert.deepEqual(await t.services.fraud.judgeConversion(), [{ workspaceId, range: RANGE }]);
  });
});
