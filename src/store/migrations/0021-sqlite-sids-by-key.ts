// On SQLite a VE SID's verification is found through the key itself (verification/repository.ts `idPrefixQuery`):
// SQLite compares text by its bytes, so the ids beginning `ver_` + the SID's 21 characters are one range of the
// primary key. The expression index of migration 0015 goes there, and every send writes one index fewer.
// PostgreSQL orders text by the database's collation, where such a range need not hold them all: it keeps the index.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../migration-dialect.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await db.schema.dropIndex('verifications_sid_prefix').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  await db.schema
    .createIndex('verifications_sid_prefix')
    .on('verifications')
    .expression(sql`substr(id, 5, 21)`)
    .execute();
}
