// The first schema. Portable DDL only: it runs unchanged on SQLite and PostgreSQL.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allowed_countries', 'text')
    .addColumn('send_limit', 'integer', (c) => c.notNull())
    .addColumn('send_window_seconds', 'integer', (c) => c.notNull())
    .addColumn('request_limit_per_minute', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspace_numbers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('workspace_numbers_workspace_number', ['workspace_id', 'number'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').column('workspace_id').execute();

  await db.schema
    .createTable('verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('code_length', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('brand_name', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('delivery_ok', 'integer')
    .addColumn('delivery_provider', 'text')
    .addColumn('provider_id', 'text')
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('seq', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('verifications_workspace_phone')
    .on('verifications')
    .columns(['workspace_id', 'phone', 'seq'])
    .execute();
  await db.schema
    .createIndex('verifications_send_window')
    .on('verifications')
    .columns(['workspace_id', 'phone', 'created_at'])
    .execute();
  // The supersede invariant in the schema itself: at most one pending verification per number per workspace.
  await db.schema
    .createIndex('verifications_one_pending')
    .on('verifications')
    .columns(['workspace_id', 'phone'])
    .unique()
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  await db.schema.createIndex('verifications_created').on('verifications').column('created_at').execute();
  await db.schema
    .createIndex('verifications_status_expiry')
    .on('verifications')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('phone_locks')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('touched_at', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('phone_locks_pk', ['workspace_id', 'phone'])
    .execute();

  await db.schema
    .createTable('request_counters')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_counters_pk', ['workspace_id', 'window_start'])
    .execute();

  await db.schema
    .createTable('outbox_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verification_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('markup', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('report_due_at', 'bigint')
    .addColumn('report_applied', 'integer', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('outbox_messages_to')
    .on('outbox_messages')
    .columns(['to_number', 'seq'])
    .execute();
  await db.schema.createIndex('outbox_messages_seq').on('outbox_messages').column('seq').execute();
  await db.schema.createIndex('outbox_messages_created').on('outbox_messages').column('created_at').execute();
  await db.schema.createIndex('phone_locks_touched').on('phone_locks').column('touched_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'outbox_messages',
    'request_counters',
    'phone_locks',
    'verifications',
    'api_keys',
    'workspace_numbers',
    'workspaces',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
