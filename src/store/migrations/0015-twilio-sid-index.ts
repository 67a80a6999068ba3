// The Twilio-compatible API (src/twilio-api/) names a verification by a VE… SID that stands for the first 21
// characters of its id after `ver_` (src/twilio-api/sids.ts). This index finds a verification by them: an index
// of an expression, so no column is added and no write changes. Its keys begin with the id's time characters, so
// new rows append to its end like the primary key's. The query must name the very same expression.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('verifications_sid_prefix')
    .on('verifications')
    .expression(sql`substr(id, 5, 21)`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('verifications_sid_prefix').execute();
}
