// Durable delivery: a job per verification still to be handed over, committed in the send's transaction.
// The row holds the code sealed (src/sealing.ts) and is deleted once the hand-over is settled, so nothing that
// opens to the code outlives its delivery.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('delivery_jobs')
    .addColumn('verification_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('sealed_code', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_token', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('delivery_jobs_due')
    .on('delivery_jobs')
    .columns(['next_attempt_at', 'lease_until'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('delivery_jobs_due').execute();
  await db.schema.dropTable('delivery_jobs').execute();
}
