// The overview splits "not verified" into pending, canceled, expired and failed (issue 16, item 7): the hourly
// roll-ups count each status. The hours already rolled up knew only sends, verified and undelivered, so they are
// dropped and the watermark goes back to 0: the sweeper rolls them up again from the raw rows (the dashboard reads
// raw rows above the watermark meanwhile, correct throughout).
import { type Kysely, sql } from 'kysely';

const COLUMNS = ['pending', 'canceled', 'expired', 'failed'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('verification_rollups')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await sql`delete from verification_rollups`.execute(db);
  await sql`update watermarks set done_before = 0 where name = 'verification_rollups'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS)
    await db.schema.alterTable('verification_rollups').dropColumn(column).execute();
}
