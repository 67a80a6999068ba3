// The pumping guard's conversion signal (src/fraud/conversion.ts, docs/api.md "Pumping guard"): two more settings
// per workspace, with defaults so the rows already written keep working, and the look-up of a range's last block
// that the judgement makes for every range it considers.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The last N finished sends of a range are judged...
  await db.schema
    .alterTable('fraud_settings')
    .addColumn('conversion_sends', 'integer', (c) => c.notNull().defaultTo(50))
    .execute();
  // ...and a share of verified codes below this percent blocks it (0: the signal is off).
  await db.schema
    .alterTable('fraud_settings')
    .addColumn('conversion_percent', 'integer', (c) => c.notNull().defaultTo(10))
    .execute();
  // A low_conversion block: how many of the judged sends were verified (null for the other reasons).
  await db.schema.alterTable('fraud_blocks').addColumn('verified', 'integer').execute();
  // Only sends after a range's last block count as evidence: its blocks by range, by end.
  await db.schema
    .createIndex('fraud_blocks_range')
    .on('fraud_blocks')
    .columns(['workspace_id', 'range_prefix', 'blocked_until'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('fraud_blocks_range').execute();
  await db.schema.alterTable('fraud_blocks').dropColumn('verified').execute();
  await db.schema.alterTable('fraud_settings').dropColumn('conversion_percent').execute();
  await db.schema.alterTable('fraud_settings').dropColumn('conversion_sends').execute();
}
