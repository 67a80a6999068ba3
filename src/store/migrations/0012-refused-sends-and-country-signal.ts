// Sends the pumping guard or the failed-guess ceiling refused (src/verification/refused-sends.ts, docs/dashboard.md
// "Refused sends"): one small row per refusal, written by the refusal itself, shown in the verifications log beside
// the verifications and deleted by retention like them. And the conversion signal per country (src/fraud/): two
// more settings per workspace, with defaults so the rows already written keep working. A country's block lives in
// the tables a range's does, keyed by the country's two letters (src/fraud/rules.ts isCountryKey).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('refused_sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    // range_velocity, low_conversion, number_type or guess_ceiling.
    .addColumn('reason', 'text', (c) => c.notNull())
    // The block that refused it (range_velocity, low_conversion); null for the other reasons.
    .addColumn('block_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The log's newest-first walk of a workspace (the date filters and the cursor bound it).
  await db.schema
    .createIndex('refused_sends_newest')
    .on('refused_sends')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  // The log's search for a whole number.
  await db.schema
    .createIndex('refused_sends_phone')
    .on('refused_sends')
    .columns(['workspace_id', 'phone', 'created_at'])
    .execute();
  // Retention deletes by it, across workspaces.
  await db.schema.createIndex('refused_sends_created').on('refused_sends').column('created_at').execute();
  // A country's last N finished sends are judged (N: country_conversion_sends)...
  await db.schema
    .alterTable('fraud_settings')
    .addColumn('country_conversion_sends', 'integer', (c) => c.notNull().defaultTo(200))
    .execute();
  // ...and a share of verified codes below this percent blocks it (0: the country signal is off).
  await db.schema
    .alterTable('fraud_settings')
    .addColumn('country_conversion_percent', 'integer', (c) => c.notNull().defaultTo(5))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('fraud_settings').dropColumn('country_conversion_percent').execute();
  await db.schema.alterTable('fraud_settings').dropColumn('country_conversion_sends').execute();
  await db.schema.dropTable('refused_sends').execute();
}
