// Indexes for the sweeper, which found some of its rows by reading whole tables: every sweep (every process, on
// SQLite on the serving connection, every API request waiting) or every hour. At 1,000,000 rows each such read
// held SQLite for 0.2 to 1.6 s (docs/benchmarks.md). Each index here is chosen for its write cost too:
// - The development outbox's late reports (a message to a number ending in the failure suffix reports a failure a
//   while after its hand-over), looked for at every sweep: a partial index of the reports still due holds those
//   few rows and nothing else, so a message that reports nothing never touches it.
// - Retention found old outbox messages by `created_at` through an index of its own; their `seq` (the message's
//   stamp, its creation in microseconds, clock.ts `monotonicStamps`) orders them the same through an index they
//   already have, so that index goes: every message written pays one index less.
// - Retention's settled webhook messages (by `settled_at`, which is set exactly while a message is settled: a
//   partial index of those) and webhook attempts (by `at`), read whole every hour before. Only workspaces with
//   webhook endpoints write these tables.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('outbox_messages_reports_due')
    .on('outbox_messages')
    .column('report_due_at')
    .where(sql.ref('report_due_at'), 'is not', sql.lit(null))
    .where(sql.ref('report_applied'), '=', sql.lit(0))
    .execute();
  await db.schema.dropIndex('outbox_messages_created').execute();
  await db.schema
    .createIndex('webhook_messages_settled')
    .on('webhook_messages')
    .column('settled_at')
    .where(sql.ref('settled_at'), 'is not', sql.lit(null))
    .execute();
  await db.schema.createIndex('webhook_attempts_at').on('webhook_attempts').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_attempts_at').execute();
  await db.schema.dropIndex('webhook_messages_settled').execute();
  await db.schema.createIndex('outbox_messages_created').on('outbox_messages').column('created_at').execute();
  await db.schema.dropIndex('outbox_messages_reports_due').execute();
}
