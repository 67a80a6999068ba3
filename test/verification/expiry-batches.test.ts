// The sweeper's expiry goes in batches (repository.ts EXPIRY_BATCH), each its own statement and transaction, with a
// turn of the event loop between them. A burst of unchecked sends comes due together: in one statement, 20,000
// codes held SQLite's serving connection for 440 ms, and every API request waited (docs/benchmarks.md). Every due
// code is still expired once, with one timeline event, whoever sweeps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { acmeSuite, sendOk } from '../helpers/verification.js';

describe('the sweeper expires due codes in batches', () => {
  const suite = acmeSuite();

  /** `count` pending codes to numbers of their own, then the clock past their expiry; their ids. */
  async function dueCodes(count: number, first: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      ids.push(
        (await sendOk(suite.api, { phone: `+614123${String(first + i).padStart(5, '0')}`, channel: 'sms' }))
          .id,
      );
    suite.clock.advance(301_000);
    return ids;
  }

  async function statuses(ids: string[]): Promise<string[]> {
    const rows = await suite.t.store.db
      .selectFrom('verifications')
      .select('status')
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => r.status);
  }

  async function expiredEvents(ids: string[]): Promise<number> {
    const rows = await suite.t.store.db
      .selectFrom('verification_events')
      .select('verification_id')
      .where('verification_id', 'in', ids)
      .where('kind', '=', 'expired')
      .execute();
    assert.equal(new Set(rows.map((r) => r.verification_id)).size, rows.length, 'one expired event per code');
    return rows.length;
  }

  test('12 due codes in batches of 5: statements of 5, 5 and 2 rows, the event loop turning between them', async () => {
    const ids = await dueCodes(12, 100);
    // Each turn of the event loop moves the clock on by 1 ms, and a batch stamps its rows with the clock as it
    // starts: the rows of one batch share a stamp, and two batches have different ones only if a turn came between.
    let sweeping = true;
    const turn = () => {
      suite.clock.advance(1);
      if (sweeping) setImmediate(turn);
    };
    setImmediate(turn);
    const expired = await suite.t.services.verifications.expireDue(5);
    sweeping = false;
    await suite.t.store.committed();

    assert.equal(expired, 12);
    const rows = await suite.t.store.db
      .selectFrom('verifications')
      .select(['status', 'updated_at'])
      .where('id', 'in', ids)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.status),
      Array(12).fill('expired'),
    );
    const batches = new Map<number, number>();
    for (const r of rows) batches.set(Number(r.updated_at), (batches.get(Number(r.updated_at)) ?? 0) + 1);
    assert.deepEqual(
      [...batches].sort((a, b) => a[0] - b[0]).map(([, n]) => n),
      [5, 5, 2],
    );
    assert.equal(await expiredEvents(ids), 12);
    assert.equal(await suite.t.services.verifications.expireDue(5), 0, 'nothing left due');
  });

  test('two sweeps at once (two processes) expire each code once: the counts add up, one event a code', async () => {
    const ids = await dueCodes(23, 300);
    const [a, b] = await Promise.all([
      suite.t.services.verifications.expireDue(4),
      suite.t.services.verifications.expireDue(4),
    ]);
    // A batch that lost rows to the other sweep comes back short and ends its sweep: what is left goes next time.
    const rest = await suite.t.services.verifications.expireDue(4);
    assert.equal(a + b + rest, 23);
    assert.deepEqual(await statuses(ids), Array(23).fill('expired'));
    assert.equal(await expiredEvents(ids), 23);
  });

  test('a batch stops at codes not yet due, and leaves terminal ones alone', async () => {
    const due = await dueCodes(3, 200);
    const later = await sendOk(suite.api, { phone: '+61412390001', channel: 'sms' });
    const verified = await sendOk(suite.api, { phone: '+61412390002', channel: 'sms' });
    await suite.t.store.db
      .updateTable('verifications')
      .set({ status: 'verified' })
      .where('id', '=', verified.id)
      .execute();
    suite.clock.set(Date.parse(later.expires_at) - 1);

    assert.equal(await suite.t.services.verifications.expireDue(2), 3);
    assert.deepEqual(await statuses(due), ['expired', 'expired', 'expired']);
    assert.deepEqual((await statuses([later.id, verified.id])).sort(), ['pending', 'verified']);
  });
});
