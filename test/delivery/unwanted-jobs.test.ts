// The sweeper deletes the delivery jobs of codes nobody wants any more (delivery/jobs.ts deleteUnwantedJobs). A
// carrier's outage queues many jobs: which ones are unwanted is read through the store's reader (on SQLite a
// thread of its own: 20,000 waiting jobs took 17 ms of the serving thread every sweep), and they are deleted in
// batches, each after a turn of the event loop, so requests are answered meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UNWANTED_BATCH } from '../../src/delivery/jobs.js';
import { answeredDuring } from '../helpers/answered-during.js';
import type { Client, TestApp } from '../helpers/app.js';
import { acmeApp } from '../helpers/verification.js';
import { insertRows } from '../helpers/verification-rows.js';

describe("the sweeper's deletion of unwanted delivery jobs", () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: string;

  before(async () => {
    ({ t, api } = await acmeApp());
    const ws = await t.store.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    workspaceId = ws.id;
  });
  after(() => t.close());

  /** Verifications of `status`, each with a job waiting for its hand-over; their ids. */
  async function withJobs(count: number, status: 'canceled' | 'pending', first: number): Promise<string[]> {
    const now = Date.now();
    const ids = await insertRows(
      t.store.db,
      Array.from({ length: count }, (_, i) => ({
        workspaceId,
        phone: `+6141238${String(first + i).padStart(4, '0')}`,
        createdAt: now - 60_000,
        status,
        ttlSeconds: 900,
      })),
    );
    for (let i = 0; i < ids.length; i += 200)
      await t.store.db
        .insertInto('delivery_jobs')
        .values(
          ids.slice(i, i + 200).map((id) => ({
            verification_id: id,
            workspace_id: workspaceId,
            sealed_code: 'sealed',
            attempts: 1,
            next_attempt_at: now + 600_000,
            lease_until: 0,
            lease_token: null,
            last_error: null,
            created_at: now - 60_000,
          })),
        )
        .execute();
    await t.store.committed();
    return ids;
  }

  const jobsLeft = async () =>
    (await t.store.db.selectFrom('delivery_jobs').select('verification_id').execute()).map(
      (j) => j.verification_id,
    );

  test(`${2 * UNWANTED_BATCH + 1} unwanted jobs all go, in batches, a request answered meanwhile; a pending code keeps its job`, async () => {
    const unwanted = await withJobs(2 * UNWANTED_BATCH + 1, 'canceled', 0);
    const [waiting] = await withJobs(1, 'pending', 5000);

    const deleted = await answeredDuring(api, () => t.services.dispatcher.dropUnwanted());
    assert.equal(deleted, unwanted.length);
    assert.deepEqual(await jobsLeft(), [waiting]);
    assert.equal(await t.services.dispatcher.dropUnwanted(), 0, 'nothing left to delete');
  });
});
