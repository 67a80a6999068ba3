// A verification's timeline is read, and deleted, by its verification in its order (`verification_id`, then
// `seq`, then `id`), and never by an event's id alone. Yet every event was written three times on SQLite (the
// table by its rowid, the id's unique index, the verification's index) and twice on PostgreSQL (the table and
// both indexes). Every send writes two or three events.
// - SQLite: the table is rebuilt WITHOUT ROWID, keyed by (verification_id, seq, id), so an event is one entry in
//   one B-tree, stored in the order it is read. A send commits about 1.6 fewer pages (docs/benchmarks.md).
// - PostgreSQL: the key becomes (verification_id, seq, id) and the verification's index goes: one index an event.
// The id stays in the key, so two processes' events of one verification in one microsecond never clash; `seq`
// is a process's stamp (timeline/timeline.ts), unique within a process only.
// On SQLite the rebuild copies the table once, at the start that migrates: 3,000,000 events (a million
// verifications) took 10 s on the 2-core benchmark machine.
import { type Kysely, sql } from 'kysely';
import { isSqlite, rebuildSqliteTable } from '../migration-dialect.js';

const COLUMNS = ['id', 'verification_id', 'workspace_id', 'kind', 'detail', 'at', 'seq'];

/** SQLite's table, keyed by the verification (WITHOUT ROWID) or, as before, by the event's id. */
function rebuild(db: Kysely<unknown>, keyed: boolean): Promise<void> {
  return rebuildSqliteTable(db, 'verification_events', COLUMNS, (t) => {
    const table = t
      .addColumn('id', 'text', (c) => (keyed ? c.notNull() : c.primaryKey()))
      .addColumn('verification_id', 'text', (c) => c.notNull())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('detail', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('seq', 'bigint', (c) => c.notNull());
    return keyed
      ? table
          .addPrimaryKeyConstraint('verification_events_pk', ['verification_id', 'seq', 'id'])
          .modifyEnd(sql`without rowid`)
      : table;
  });
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return rebuild(db, true);
  await sql`alter table verification_events drop constraint verification_events_pkey,
    add constraint verification_events_pkey primary key (verification_id, seq, id)`.execute(db);
  await db.schema.dropIndex('verification_events_verification').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await rebuild(db, false);
  else
    await sql`alter table verification_events drop constraint verification_events_pkey,
      add constraint verification_events_pkey primary key (id)`.execute(db);
  await db.schema
    .createIndex('verification_events_verification')
    .on('verification_events')
    .columns(['verification_id', 'seq'])
    .execute();
}
