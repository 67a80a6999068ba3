// Carrier accounts (credentials encrypted at rest), the number -> account link, and the lookup of a
// verification by the carrier's id that status callbacks need.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('credentials', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('carrier_accounts_workspace')
    .on('carrier_accounts')
    .column('workspace_id')
    .execute();

  // Nullable, no foreign key: SQLite cannot add a referencing column to an existing table portably.
  await db.schema.alterTable('workspace_numbers').addColumn('carrier_id', 'text').execute();

  await db.schema
    .createIndex('verifications_provider_id')
    .on('verifications')
    .column('provider_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('verifications_provider_id').execute();
  await db.schema.alterTable('workspace_numbers').dropColumn('carrier_id').execute();
  await db.schema.dropIndex('carrier_accounts_workspace').execute();
  await db.schema.dropTable('carrier_accounts').execute();
}
