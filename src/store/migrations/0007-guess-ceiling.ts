// The failed-guess ceiling per destination number (limits/guess-ceiling.ts): each workspace's setting, beside its
// send limit, and the failed checks of the last day, one row each, so the ceiling counts them over a sliding
// window. Existing workspaces take the defaults (20 failed checks an hour).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('workspaces')
    .addColumn('guess_limit', 'integer', (c) => c.notNull().defaultTo(20))
    .execute();
  await db.schema
    .alterTable('workspaces')
    .addColumn('guess_window_seconds', 'integer', (c) => c.notNull().defaultTo(3600))
    .execute();

  // No key: rows are only counted (by number and time) and deleted by time, never addressed one by one.
  await db.schema
    .createTable('guess_failures')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  // The ceiling's one look-up: a number's newest failures, newest first.
  await db.schema
    .createIndex('guess_failures_number')
    .on('guess_failures')
    .columns(['workspace_id', 'phone', 'at'])
    .execute();
  // Retention deletes failures older than the longest window by time alone.
  await db.schema.createIndex('guess_failures_at').on('guess_failures').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('guess_failures').execute();
  await db.schema.alterTable('workspaces').dropColumn('guess_window_seconds').execute();
  await db.schema.alterTable('workspaces').dropColumn('guess_limit').execute();
}
