// Test mode (docs/api.md, "Test mode"): API keys, verifications and development outbox messages record their mode
// ('live' or 'test'; every row written before is live), and each workspace may have test numbers with a fixed
// code. A key's mode is the one its prefix names (`pv_live_…` / `pv_test_…`): the CHECK makes a key whose stored
// mode disagrees with its prefix impossible. The columns get a constant default, so adding them rewrites no row
// on either store.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('mode', 'text', (c) =>
      c
        .notNull()
        .defaultTo('live')
        .check(sql`mode in ('live', 'test') and substr(prefix, 1, 8) = 'pv_' || mode || '_'`),
    )
    .execute();
  for (const table of ['verifications', 'outbox_messages']) {
    await db.schema
      .alterTable(table)
      .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
      .execute();
  }
  // The supersede invariant, per mode: at most one pending verification per number, workspace and mode (a test
  // send never supersedes a live code, nor the reverse). The index of 0001 is replaced by its per-mode form.
  await db.schema.dropIndex('verifications_one_pending').execute();
  await db.schema
    .createIndex('verifications_one_pending_per_mode')
    .on('verifications')
    .columns(['workspace_id', 'phone', 'mode'])
    .unique()
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  await db.schema
    .createTable('test_numbers')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    // Not a secret: it is only ever accepted for a verification a test key made, and nothing is delivered.
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('test_numbers_pk', ['workspace_id', 'phone'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('test_numbers').execute();
  await db.schema.dropIndex('verifications_one_pending_per_mode').execute();
  await db.schema
    .createIndex('verifications_one_pending')
    .on('verifications')
    .columns(['workspace_id', 'phone'])
    .unique()
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  for (const table of ['outbox_messages', 'verifications', 'api_keys']) {
    await db.schema.alterTable(table).dropColumn('mode').execute();
  }
}
