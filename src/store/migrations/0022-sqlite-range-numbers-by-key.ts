// The pumping guard's last send to each number (`fraud_range_numbers`, migration 0010) is written by every live
// send and found by its key (workspace_id, phone) or through its two indexes, never by a rowid. On SQLite the table
// is rebuilt WITHOUT ROWID, its rows stored in the key's own B-tree: a send writes one B-tree fewer, and the
// guard's count of a range (its window index, which now carries the number) reads no row of the table.
// PostgreSQL has no such table kind and is left as it is.
import { type Kysely, sql } from 'kysely';
import { isSqlite, rebuildSqliteTable } from '../migration-dialect.js';

async function rebuild(db: Kysely<unknown>, withoutRowid: boolean): Promise<void> {
  await rebuildSqliteTable(
    db,
    'fraud_range_numbers',
    ['workspace_id', 'phone', 'range_prefix', 'last_sent_at'],
    (t) => {
      const table = t
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('phone', 'text', (c) => c.notNull())
        .addColumn('range_prefix', 'text', (c) => c.notNull())
        .addColumn('last_sent_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('fraud_range_numbers_pk', ['workspace_id', 'phone']);
      return withoutRowid ? table.modifyEnd(sql`without rowid`) : table;
    },
  );
  await db.schema
    .createIndex('fraud_range_numbers_window')
    .on('fraud_range_numbers')
    .columns(['workspace_id', 'range_prefix', 'last_sent_at'])
    .execute();
  await db.schema
    .createIndex('fraud_range_numbers_sent')
    .on('fraud_range_numbers')
    .column('last_sent_at')
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await rebuild(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await rebuild(db, false);
}
