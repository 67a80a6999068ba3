// The overview's counts of the hours not rolled up yet, kept as each verification changes (src/stats/counts.ts):
// one row per workspace, hour, channel, destination and seconds to verify, with how many sends are in each status.
// Triggers keep them, so every write of a verification counts, whichever path makes it (send, check, cancel,
// supersede, expiry, a carrier's report, a test's direct insert): an insert adds its contribution, an update that
// changes a counted column takes the old one away and adds the new. Live data only, like the roll-ups.
//
// The key is the aggregate's (src/stats/rollup-queries.ts): `country` '' and `prefix` the number's first five
// characters where the country is unknown; `seconds` -1 for a send that is not verified. `shard` is 0 on SQLite,
// whose one writer never waits for a row; on PostgreSQL it is the server process (`pg_backend_pid()`), so
// concurrent transactions never update one row: no send waits for another's counter lock, and no two
// transactions can deadlock on counters touched in different orders. The overview adds the shards up.
//
// Existing live verifications are counted once here, so the counts hold every hour from the start.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../migration-dialect.js';

const STATUSES = ['verified', 'undelivered', 'pending', 'canceled', 'expired', 'failed'] as const;
const KEY = ['workspace_id', 'hour', 'channel', 'country', 'prefix', 'seconds', 'shard'] as const;
const COUNTS = ['sends', ...STATUSES] as const;

/** The key and counts of one row's contribution (`r` is NEW or OLD), `sign` 1 or -1; `truth` makes 0/1. */
function contribution(r: string, sign: string, shard: string, truth: (cond: string) => string): string[] {
  return [
    `${r}.workspace_id`,
    `(${r}.created_at / 3600000) * 3600000`,
    `${r}.channel`,
    `coalesce(${r}.country, '')`,
    `case when ${r}.country is null then substr(${r}.phone, 1, 5) else '' end`,
    `case when ${r}.status = 'verified' and ${r}.verified_at is not null then (${r}.verified_at - ${r}.created_at) / 1000 else -1 end`,
    shard,
    sign,
    ...STATUSES.map((s) => `${sign} * ${truth(`${r}.status = '${s}'`)}`),
  ];
}

const upsertTail = `on conflict (${KEY.join(', ')}) do update set ${COUNTS.map(
  (c) => `${c} = verification_counts.${c} + excluded.${c}`,
).join(', ')}`;

/** The counted columns: an update that changes none of them leaves the counts alone. */
const COUNTED_COLUMNS = [
  'status',
  'verified_at',
  'channel',
  'country',
  'phone',
  'created_at',
  'workspace_id',
  'mode',
];

function sqliteTriggers(): string[] {
  const truth = (cond: string) => `(${cond})`;
  const insert = (r: string, sign: string, when: string) =>
    `insert into verification_counts (${[...KEY, ...COUNTS].join(', ')}) select ${contribution(r, sign, '0', truth).join(', ')} where ${when} ${upsertTail};`;
  const changed = COUNTED_COLUMNS.map((c) => `old.${c} is not new.${c}`).join(' or ');
  return [
    `create trigger verification_counts_insert after insert on verifications when new.mode = 'live' begin
       ${insert('new', '1', "new.mode = 'live'")}
     end`,
    `create trigger verification_counts_update after update of ${COUNTED_COLUMNS.join(', ')} on verifications
     when (old.mode = 'live' or new.mode = 'live') and (${changed}) begin
       ${insert('old', '-1', "old.mode = 'live'")}
       ${insert('new', '1', "new.mode = 'live'")}
     end`,
  ];
}

function postgresTriggers(): string[] {
  const truth = (cond: string) => `(${cond})::int`;
  const insert = (r: string, sign: string) =>
    `insert into verification_counts (${[...KEY, ...COUNTS].join(', ')}) values (${contribution(r, sign, 'pg_backend_pid()', truth).join(', ')}) ${upsertTail};`;
  const changed = COUNTED_COLUMNS.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
  return [
    `create function verification_counts_change() returns trigger language plpgsql as $$
     begin
       if tg_op = 'UPDATE' and old.mode = 'live' then
         ${insert('old', '-1')}
       end if;
       if new.mode = 'live' then
         ${insert('new', '1')}
       end if;
       return null;
     end $$`,
    `create trigger verification_counts_insert after insert on verifications
     for each row when (new.mode = 'live') execute function verification_counts_change()`,
    `create trigger verification_counts_update after update of ${COUNTED_COLUMNS.join(', ')} on verifications
     for each row when ((old.mode = 'live' or new.mode = 'live') and (${changed}))
     execute function verification_counts_change()`,
  ];
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db);
  let table = db.schema
    .createTable('verification_counts')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('seconds', 'bigint', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull());
  for (const column of COUNTS) table = table.addColumn(column, 'integer', (c) => c.notNull());
  await table.addPrimaryKeyConstraint('verification_counts_pk', [...KEY]).execute();

  const truth = sqlite ? (cond: string) => `(${cond})` : (cond: string) => `(${cond})::int`;
  const [, hour, , country, prefix, seconds] = contribution('v', '1', '0', truth);
  await sql
    .raw(
      `insert into verification_counts (${[...KEY, ...COUNTS].join(', ')})
       select workspace_id, ${hour}, channel, ${country}, ${prefix}, ${seconds}, 0, count(*),
         ${STATUSES.map((s) => `sum(${truth(`status = '${s}'`)})`).join(', ')}
       from verifications as v where mode = 'live'
       group by workspace_id, ${hour}, channel, ${country}, ${prefix}, ${seconds}`,
    )
    .execute(db);
  for (const statement of sqlite ? sqliteTriggers() : postgresTriggers())
    await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db);
  await sql`drop trigger if exists verification_counts_insert${sql.raw(sqlite ? '' : ' on verifications')}`.execute(
    db,
  );
  await sql`drop trigger if exists verification_counts_update${sql.raw(sqlite ? '' : ' on verifications')}`.execute(
    db,
  );
  if (!sqlite) await sql`drop function if exists verification_counts_change()`.execute(db);
  await db.schema.dropTable('verification_counts').execute();
}
