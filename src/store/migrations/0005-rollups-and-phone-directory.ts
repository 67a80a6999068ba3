// Background read-models that keep the dashboard's reads off the size of `verifications` (docs/dashboard.md):
// hourly roll-ups of the overview's counts, a directory of each workspace's numbers by their last digits, and
// the watermark up to which each is complete. Both are filled by the sweeper, never by a request; nothing on
// `verifications` changes, so its inserts (the send path) cost exactly what they did. An existing database
// needs no backfill here: both watermarks start at 0 and the sweeper catches up from the oldest row, while the
// dashboard reads the raw rows above each watermark (correct throughout, fast once caught up).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('watermarks')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('done_before', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into watermarks (name, done_before) values ('verification_rollups', 0), ('phone_directory', 0)`.execute(
    db,
  );

  await db.schema
    .createTable('verification_rollups')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    // '' rather than null in the key (null never equals null, so a key with one would not be unique).
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('sends', 'integer', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('undelivered', 'integer', (c) => c.notNull())
    .addColumn('verify_seconds', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('verification_rollups_pk', [
      'workspace_id',
      'hour',
      'channel',
      'country',
      'prefix',
    ])
    .execute();
  await db.schema
    .createIndex('verification_rollups_hour')
    .on('verification_rollups')
    .column('hour')
    .execute();

  await db.schema
    .createTable('phone_directory')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('reversed', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('sends', 'integer', (c) => c.notNull())
    .addColumn('last_created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('phone_directory_pk', ['workspace_id', 'reversed'])
    .execute();
  await db.schema
    .createIndex('phone_directory_last_created')
    .on('phone_directory')
    .column('last_created_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['phone_directory', 'verification_rollups', 'watermarks']) {
    await db.schema.dropTable(table).execute();
  }
}
