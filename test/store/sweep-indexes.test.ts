// The sweeper's indexes (migration 0019-sweep-indexes). Rows the sweeper looks for were found by reading whole
// tables, on SQLite on the serving connection with every API request waiting: the development outbox's due late
// reports at every sweep (180 to 500 ms at 1,000,000 messages), retention's settled webhook messages and webhook
// attempts every hour (1.0 to 1.6 s and 0.7 to 1.2 s at 1,000,000 rows). Each is now a search through an index,
// proven here by its plan on both stores; and the outbox's index of `created_at`, which only retention read, is
// gone (retention reads the stamp's index). What the rows are (a report due after a second and applied once;
// what retention deletes and keeps) is dev-provider.test.ts's and retention.test.ts's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Compilable } from 'kysely';
import { dueReportsQuery } from '../../src/delivery/outbox-repository.js';
import type { Db } from '../../src/store/database.js';
import { dialectOf } from '../../src/store/prepared.js';
import {
  outboxCreatedBefore,
  webhookAttemptsBefore,
  webhookMessagesSettledBefore,
} from '../../src/store/retention.js';
import { openTestStore, type TestStoreHandle } from '../helpers/app.js';
import { indexesOf, planOf, WHOLE_OR_SORTED } from '../helpers/plans.js';

describe("the sweeper's reads go through indexes (migration 0019-sweep-indexes)", () => {
  let handle: TestStoreHandle;
  let db: Db;
  before(async () => {
    handle = await openTestStore();
    db = handle.store.db;
  });
  after(() => handle.close());

  /** Each read of the sweeper's: what it is, the index it must search, and the statement as the service makes it. */
  const reads: { name: string; index: string; query: (db: Db) => Compilable }[] = [
    {
      name: "every sweep's due late reports: the partial index of reports still due, in its order",
      index: 'outbox_messages_reports_due',
      query: (db) => dueReportsQuery(db, Date.now()),
    },
    {
      name: "retention's old outbox messages: the stamp's index",
      index: 'outbox_messages_seq',
      query: (db) => outboxCreatedBefore(db.selectFrom('outbox_messages').select('id'), 1).limit(200),
    },
    {
      name: "retention's settled webhook messages: the partial index of the settled ones",
      index: 'webhook_messages_settled',
      query: (db) =>
        webhookMessagesSettledBefore(
          db.selectFrom('webhook_messages').select(['event_id', 'endpoint_id']),
          1,
        ).limit(200),
    },
    {
      name: "retention's old webhook attempts: their index by time",
      index: 'webhook_attempts_at',
      query: (db) => webhookAttemptsBefore(db.selectFrom('webhook_attempts').select('id'), 1).limit(200),
    },
  ];
  for (const read of reads) {
    test(read.name, async () => {
      const plan = await planOf(db, read.query(db));
      assert.match(plan, new RegExp(read.index), plan);
      assert.doesNotMatch(plan, WHOLE_OR_SORTED, plan);
    });
  }

  test("the outbox's index of created_at is gone; a message is written to three indexes besides its key", async () => {
    const key = dialectOf(db) === 'postgres' ? ['outbox_messages_pkey'] : [];
    assert.deepEqual(await indexesOf(db, 'outbox_messages'), [
      ...key,
      'outbox_messages_reports_due',
      'outbox_messages_seq',
      'outbox_messages_to',
    ]);
  });
});
