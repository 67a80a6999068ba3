// A statement that changes a batch of rows (a delivery job claim, a webhook message claim, the sweeper's expiry)
// changes `limit` rows at most, whatever plan PostgreSQL makes (store/locked-batch.ts). Written as
// `where id in (select … limit n for update skip locked)`, PostgreSQL may run the subquery again for each row of a
// nested-loop semi-join, each run skipping the rows the statement already changed: the sweeper's expiry changed 12
// rows in a batch of 5. Here PostgreSQL is made to plan with nested loops only (hash and merge joins off).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claimDueJobs } from '../../src/delivery/jobs.js';
import { newId } from '../../src/ids.js';
import { openStore, type Store } from '../../src/store/database.js';
import { expireDueBatch } from '../../src/verification/repository.js';
import { claimDue } from '../../src/webhooks/messages.js';
import { seedWorkspace, type TestApp } from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';
import { clockedApp } from '../helpers/verification.js';
import { insertRows } from '../helpers/verification-rows.js';

const NESTED_LOOPS_ONLY = `options=${encodeURIComponent('-c enable_hashjoin=off -c enable_mergejoin=off')}`;

describe('a batch statement changes its limit of rows at most', () => {
  let t: TestApp;
  /** The same database; on PostgreSQL planning with nested loops only. */
  let store: Store;
  let now: number;

  before(async () => {
    ({ t } = await clockedApp());
    const { workspaceId } = await seedWorkspace(t.services);
    now = Date.now();
    const ids = await insertRows(
      t.store.db,
      Array.from({ length: 12 }, (_, i) => ({
        workspaceId,
        phone: `+6141237${String(i).padStart(4, '0')}`,
        createdAt: now - 600_000 + i,
        status: 'pending' as const,
      })),
    );
    await t.store.db
      .insertInto('delivery_jobs')
      .values(
        ids.map((id, i) => ({
          verification_id: id,
          workspace_id: workspaceId,
          sealed_code: 'sealed',
          attempts: 0,
          lease_until: 0,
          lease_token: null,
          last_error: null,
          next_attempt_at: now - 1000 + i,
          created_at: now - 1000,
        })),
      )
      .execute();
    await t.store.db
      .insertInto('webhook_messages')
      .values(
        ids.map((id, i) => ({
          event_id: newId('evt'),
          endpoint_id: 'ep_batch',
          workspace_id: workspaceId,
          type: 'verification.expired',
          verification_id: id,
          body: '{}',
          state: 'pending',
          attempts: 0,
          lease_until: 0,
          lease_token: null,
          settled_at: null,
          next_attempt_at: now - 1000 + i,
          created_at: now - 1000,
        })),
      )
      .execute();
    await t.store.committed();
    store =
      TEST_STORE === 'postgres'
        ? await openStore({ url: `${t.databaseUrl}?${NESTED_LOOPS_ONLY}`, poolMax: 2 })
        : t.store;
  });
  after(async () => {
    if (store !== t.store) await store.close();
    await t.close();
  });

  const claim = { now: 0, leaseMs: 60_000, token: 'tok', limit: 5 };

  test('delivery jobs: 12 due, claimed 5, 5, then 2', async () => {
    const sizes = [];
    for (let i = 0; i < 3; i++)
      sizes.push((await claimDueJobs(store, { ...claim, now, token: `tok${i}` })).length);
    assert.deepEqual(sizes, [5, 5, 2]);
  });

  test('webhook messages: 12 due, claimed 5, 5, then 2', async () => {
    const sizes = [];
    for (let i = 0; i < 3; i++)
      sizes.push((await claimDue(store, { ...claim, now, token: `tok${i}` })).length);
    assert.deepEqual(sizes, [5, 5, 2]);
  });

  test("the sweeper's expiry: 12 due, expired 5, 5, then 2", async () => {
    const sizes = [];
    for (let i = 0; i < 3; i++) sizes.push((await expireDueBatch(store.db, { now, limit: 5 })).rows.length);
    assert.deepEqual(sizes, [5, 5, 2]);
  });
});
