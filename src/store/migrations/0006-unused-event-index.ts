// The timeline's index on `at` served no query: events are read and pruned by their verification
// (`verification_events_verification`). Every send writes two or three events, each paying for that index.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('verification_events_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('verification_events_at').on('verification_events').column('at').execute();
}
