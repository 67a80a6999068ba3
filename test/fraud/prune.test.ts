// The pumping guard's tables are pruned by the sweeper's retention step (services.fraud.prune): a number's last
// send once past the longest window a setting allows (a day), a range row no send touched since and no block holds,
// and the history of a block once it ended more than RETENTION_DAYS ago. A block in force is never pruned.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertProblem, clockedApp } from '../helpers/verification.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const inRange = (range: string, i: number) => `${range}${String(i).padStart(3, '0')}`;

describe('pumping guard: pruning', () => {
  let t: TestApp;
  let clock: FakeClock;

  before(async () => {
    ({ t, clock } = await clockedApp());
  });
  after(() => t.close());

  const count = async (table: 'fraud_range_numbers' | 'fraud_ranges' | 'fraud_blocks') =>
    Number(
      (
        await t.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('recent numbers and idle ranges go after a day, a block in force stays, ended blocks after the retention days', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Prune', pumpingGuard: 'default' });
    const api = client(t.app, ws.key);
    // One quiet range (two numbers), one range that trips the rule (blocked for an hour).
    for (const i of [0, 1])
      assert.equal((await api.send({ phone: inRange('+61412346', i), channel: 'sms' })).statusCode, 201);
    for (let i = 0; i < 10; i++) await api.send({ phone: inRange('+61412347', i), channel: 'sms' });
    assertProblem(
      await api.send({ phone: inRange('+61412347', 10), channel: 'sms' }),
      403,
      'destination_blocked',
    );
    assert.equal(await count('fraud_range_numbers'), 12);
    assert.equal(await count('fraud_ranges'), 2);
    assert.equal(await count('fraud_blocks'), 1);

    // Within the day nothing goes.
    clock.advance(DAY - HOUR);
    assert.deepEqual(await t.services.fraud.prune(), { numbers: 0, ranges: 0, blocks: 0 });

    // Past the day: the numbers and both ranges (the block ended 23 hours ago); the block's history stays.
    clock.advance(2 * HOUR);
    assert.deepEqual(await t.services.fraud.prune(), { numbers: 12, ranges: 2, blocks: 0 });
    assert.equal(await count('fraud_blocks'), 1);

    // Past the retention days (30 in tests' default), the ended block's history goes too.
    clock.advance(30 * DAY);
    assert.deepEqual(await t.services.fraud.prune(), { numbers: 0, ranges: 0, blocks: 1 });
  });

  test('a range whose block is still in force keeps its row, however long ago it was touched', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Long block', pumpingGuard: 'default' });
    await t.services.fraud.setSettings(ws.workspaceId, { block_seconds: 604_800 }, OPERATOR);
    const api = client(t.app, ws.key);
    for (let i = 0; i < 10; i++) await api.send({ phone: inRange('+61412348', i), channel: 'sms' });
    assertProblem(
      await api.send({ phone: inRange('+61412348', 10), channel: 'sms' }),
      403,
      'destination_blocked',
    );
    clock.advance(2 * DAY);
    const pruned = await t.services.fraud.prune();
    assert.equal(pruned.ranges, 0);
    assertProblem(
      await api.send({ phone: inRange('+61412348', 11), channel: 'sms' }),
      403,
      'destination_blocked',
    );
  });
});
