// Signed webhooks to the customer's backend (src/webhooks/, docs/webhooks.md): endpoints per workspace with their
// sealed signing secrets, one delivery job per event and endpoint (committed with the state change it reports),
// the attempts made, and on the workspace the count of its enabled endpoints, read with every API key so that a
// workspace without endpoints pays nothing on its request paths.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('workspaces')
    .addColumn('webhook_endpoints', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // null: every event type; else ',type,type,' (matched with LIKE by the fan-out).
    .addColumn('events', 'text')
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('sealed_previous_secret', 'text')
    .addColumn('previous_until', 'bigint')
    .addColumn('failing_since', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_workspace')
    .on('webhook_endpoints')
    .columns(['workspace_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('webhook_messages')
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('verification_id', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_token', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('settled_at', 'bigint')
    .addPrimaryKeyConstraint('webhook_messages_pk', ['event_id', 'endpoint_id'])
    .execute();
  // The dispatchers' claim: pending jobs by due time.
  await db.schema
    .createIndex('webhook_messages_due')
    .on('webhook_messages')
    .columns(['next_attempt_at', 'lease_until'])
    .where(sql.ref('state'), '=', sql.lit('pending'))
    .execute();
  await db.schema
    .createIndex('webhook_messages_endpoint')
    .on('webhook_messages')
    .columns(['endpoint_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    // The endpoint's HTTP status; null when no answer came (refused, timeout, connection error).
    .addColumn('status', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    // At most a short printable excerpt of the answer's body.
    .addColumn('excerpt', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_endpoint')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_messages').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  await db.schema.alterTable('workspaces').dropColumn('webhook_endpoints').execute();
}
