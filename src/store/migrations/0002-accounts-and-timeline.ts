// Dashboard accounts (users, their workspaces, sessions, sign-in throttling) and the verification timeline.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'workspace_id'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('workspace_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('signin_throttle')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('signin_throttle_pk', ['key', 'window_start'])
    .execute();

  await db.schema
    .createTable('verification_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verification_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('verification_events_verification')
    .on('verification_events')
    .columns(['verification_id', 'seq'])
    .execute();
  await db.schema.createIndex('verification_events_at').on('verification_events').column('at').execute();

  // The destination's country, for the dashboard's overview by country.
  await db.schema.alterTable('verifications').addColumn('country', 'text').execute();
  await db.schema
    .createIndex('verifications_workspace_created')
    .on('verifications')
    .columns(['workspace_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('verifications_workspace_created').execute();
  await db.schema.alterTable('verifications').dropColumn('country').execute();
  for (const table of ['verification_events', 'signin_throttle', 'sessions', 'memberships', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
