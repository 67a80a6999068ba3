// The pumping guard (src/fraud/, docs/api.md "Pumping guard"): per-workspace settings and allow list, one row per
// number range that sends touch (its lock and its block), the numbers of each range sent to recently, and the
// history of blocks the dashboard shows.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // No row: the defaults (src/fraud/rules.ts). A row holds every setting.
  await db.schema
    .createTable('fraud_settings')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey())
    .addColumn('range_limit', 'integer', (c) => c.notNull())
    .addColumn('range_window_seconds', 'integer', (c) => c.notNull())
    .addColumn('block_seconds', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Numbers or ranges (E.164 prefixes) never blocked.
  await db.schema
    .createTable('fraud_allow')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('fraud_allow_pk', ['workspace_id', 'prefix'])
    .execute();
  // One row per range a send touched: every send upserts it first, so on PostgreSQL its row lock serialises the
  // sends of one range (sends to different numbers hold different number locks). It holds the active block.
  await db.schema
    .createTable('fraud_ranges')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('range_prefix', 'text', (c) => c.notNull())
    .addColumn('touched_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint')
    .addColumn('block_id', 'text')
    .addColumn('block_reason', 'text')
    .addPrimaryKeyConstraint('fraud_ranges_pk', ['workspace_id', 'range_prefix'])
    .execute();
  // The last send to each number, by range: the velocity rule counts a range's numbers sent to in its window.
  await db.schema
    .createTable('fraud_range_numbers')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('range_prefix', 'text', (c) => c.notNull())
    .addColumn('last_sent_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('fraud_range_numbers_pk', ['workspace_id', 'phone'])
    .execute();
  await db.schema
    .createIndex('fraud_range_numbers_window')
    .on('fraud_range_numbers')
    .columns(['workspace_id', 'range_prefix', 'last_sent_at'])
    .execute();
  // Retention deletes by it.
  await db.schema
    .createIndex('fraud_range_numbers_sent')
    .on('fraud_range_numbers')
    .column('last_sent_at')
    .execute();
  // Every block, active or past, with how it ended and how many sends it refused.
  await db.schema
    .createTable('fraud_blocks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('range_prefix', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('distinct_numbers', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .addColumn('lifted_at', 'bigint')
    .addColumn('lifted_by', 'text')
    .addColumn('refused', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('fraud_blocks_workspace')
    .on('fraud_blocks')
    .columns(['workspace_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('fraud_blocks').execute();
  await db.schema.dropTable('fraud_range_numbers').execute();
  await db.schema.dropTable('fraud_ranges').execute();
  await db.schema.dropTable('fraud_allow').execute();
  await db.schema.dropTable('fraud_settings').execute();
}
