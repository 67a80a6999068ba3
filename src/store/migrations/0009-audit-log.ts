// The audit trail: who did what in a workspace (docs/operations.md, "The audit trail"). Each entry is written in
// the transaction of the change it records. The dashboard and the CLI list a workspace's newest entries, all or
// of one action or one actor, a page at a time: each of those walks is one index range read newest first
// (`seq` descending). Retention deletes by `at`, across workspaces.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    // Strictly increasing within a process (clock.ts monotonicStamps): "newest first" without clock ties.
    .addColumn('seq', 'bigint', (c) => c.notNull())
    // 'cli', 'system' or a dashboard account's id.
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_email', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .execute();
  await db.schema
    .createIndex('audit_log_workspace_newest')
    .on('audit_log')
    .columns(['workspace_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('audit_log_workspace_action')
    .on('audit_log')
    .columns(['workspace_id', 'action', 'seq'])
    .execute();
  await db.schema
    .createIndex('audit_log_workspace_actor')
    .on('audit_log')
    .columns(['workspace_id', 'actor', 'seq'])
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
