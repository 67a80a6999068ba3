// A PostgreSQL database as either end of a copy, on one connection of its own: the source is read in one
// REPEATABLE READ, READ ONLY transaction (a snapshot a serving process does not disturb) through a cursor, a
// batch at a time; the target takes every row in one transaction, so a failed copy leaves it without a row.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { AppError } from '../../errors.js';
import { migrateToLatest } from '../migrate.js';
import type { Row, SourceEnd, TargetEnd } from './ends.js';
import { MIGRATOR_TABLES, quoteName, type TableShape } from './schema.js';

/** PostgreSQL's limit of parameters in one statement. */
const MAX_PARAMETERS = 65_535;

const { builtins } = pg.types;
/**
 * Values as PostgreSQL writes them, so nothing is rounded on the way: bigint as its digits (epoch milliseconds
 * and counters fit a double, a future column may not), everything else as text, but for what either dialect
 * binds natively (small integers, booleans, bytes).
 */
const KEPT_PARSERS = new Set<number>([builtins.INT2, builtins.INT4, builtins.BOOL, builtins.BYTEA]);
const exactTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    KEPT_PARSERS.has(oid)
      ? pg.types.getTypeParser(oid, format)
      : (value: string) => value) as typeof pg.types.getTypeParser,
};

async function connect(url: string, shown: string): Promise<{ pool: pg.Pool; client: pg.PoolClient }> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: 5000,
    application_name: 'phone-verify db copy',
    types: exactTypes,
  });
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    client.on('error', () => {});
    return { pool, client };
  } catch (err) {
    await pool.end().catch(() => {});
    const reason = err instanceof Error ? err.message : String(err);
    throw new AppError('unavailable', `cannot reach ${shown}: ${reason || 'connection failed'}`);
  }
}

/** The database's name and oid and the server's start time: two URLs for one database give the same. */
async function identityOf(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `select 'postgres:' || current_database() || ':' || (select oid from pg_database where datname = current_database())
       || ':' || pg_postmaster_start_time() as id`,
  );
  return rows[0]?.id ?? '';
}

async function readMigrations(client: pg.PoolClient, shown: string): Promise<string[]> {
  const { rows } = await client.query<{ present: boolean }>(
    `select to_regclass('kysely_migration') is not null as present`,
  );
  if (!rows[0]?.present)
    throw new AppError('conflict', `${shown} is not a phone-verify database: it has no migrations`);
  const names = await client.query<{ name: string }>('select name from kysely_migration order by name');
  return names.rows.map((r) => r.name);
}

async function readTables(client: pg.PoolClient): Promise<TableShape[]> {
  const tables = await client.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'`,
  );
  const columns = await client.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and is_generated = 'NEVER' order by table_name, ordinal_position`,
  );
  const keys = await client.query<{ child: string; parent: string }>(
    `select ch.relname as child, pa.relname as parent from pg_constraint k
       join pg_class ch on ch.oid = k.conrelid join pg_class pa on pa.oid = k.confrelid
       join pg_namespace n on n.oid = ch.relnamespace
      where k.contype = 'f' and n.nspname = current_schema()`,
  );
  return tables.rows
    .map((t) => t.name)
    .filter((name) => !MIGRATOR_TABLES.includes(name))
    .map((name) => ({
      name,
      columns: columns.rows.filter((c) => c.table_name === name).map((c) => c.column_name),
      references: keys.rows.filter((k) => k.child === name).map((k) => k.parent),
    }));
}

export async function openPostgresSource(url: string, shown: string): Promise<SourceEnd> {
  const { pool, client } = await connect(url, shown);
  const close = async () => {
    client.release();
    await pool.end();
  };
  try {
    const identity = await identityOf(client);
    await client.query('begin isolation level repeatable read read only');
    await readMigrations(client, shown);
    return {
      identity,
      migrations: () => readMigrations(client, shown),
      tables: () => readTables(client),
      async *batches(table, size) {
        const columns = table.columns.map(quoteName).join(', ');
        await client.query(
          `declare copy_rows no scroll cursor for select ${columns} from ${quoteName(table.name)}`,
        );
        try {
          for (;;) {
            const { rows } = await client.query<Row>({
              text: `fetch forward ${size} from copy_rows`,
              rowMode: 'array',
            });
            if (rows.length === 0) break;
            yield rows;
          }
        } finally {
          await client.query('close copy_rows');
        }
      },
      close: async () => {
        await client.query('rollback').catch(() => {});
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** bigint values (SQLite's integers, read exactly) go as their digits. */
const bindable = (value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

export async function openPostgresTarget(url: string, shown: string): Promise<TargetEnd> {
  const { pool, client } = await connect(url, shown);
  let identity: string;
  try {
    identity = await identityOf(client);
  } catch (err) {
    client.release();
    await pool.end();
    throw err;
  }
  // The one connection the copy writes on (held again after the migrator's turn); undefined while released.
  let connection: pg.PoolClient | undefined = client;
  const held = (): pg.PoolClient => {
    if (!connection) throw new Error('the target connection is not held');
    return connection;
  };
  // Each statement text prepared once on the connection (a name per text): a batch only binds.
  const inserts = new Map<string, { name: string; text: string }>();
  const insertStatement = (table: TableShape, rows: number) => {
    const key = `${table.name}\u0000${rows}`;
    let statement = inserts.get(key);
    if (statement === undefined) {
      const width = table.columns.length;
      const tuples = Array.from(
        { length: rows },
        (_, r) => `(${table.columns.map((_c, c) => `$${r * width + c + 1}`).join(', ')})`,
      );
      const text = `insert into ${quoteName(table.name)} (${table.columns.map(quoteName).join(', ')}) values ${tuples.join(', ')}`;
      statement = { name: `phone_verify_copy_${inserts.size}`, text };
      inserts.set(key, statement);
    }
    return statement;
  };
  return {
    identity,
    async migrate() {
      // The migrator takes its own connection (and its advisory lock) while this one waits, idle.
      held().release();
      connection = undefined;
      // Not destroyed: that would end the pool, whose connection is taken again below.
      await migrateToLatest(new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }));
      connection = await pool.connect();
      connection.on('error', () => {});
      return readMigrations(connection, shown);
    },
    tables: () => readTables(held()),
    async count(table) {
      const { rows } = await held().query<{ n: string }>(
        `select count(*) as n from ${quoteName(table.name)}`,
      );
      return Number(rows[0]?.n ?? 0);
    },
    async begin(tables) {
      await held().query('begin');
      if (tables.length > 0)
        await held().query(
          `lock table ${tables.map((t) => quoteName(t.name)).join(', ')} in access exclusive mode`,
        );
    },
    async clear(tables) {
      if (tables.length > 0)
        await held().query(`truncate ${tables.map((t) => quoteName(t.name)).join(', ')}`);
    },
    async insert(table, rows) {
      const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / table.columns.length));
      for (let start = 0; start < rows.length; start += perStatement) {
        const slice = rows.slice(start, start + perStatement);
        await held().query({ ...insertStatement(table, slice.length), values: slice.flat().map(bindable) });
      }
    },
    async finish(tables) {
      // Serial and identity columns: the next value past the copied ones (the schema has none today).
      const { rows } = await held().query<{ table_name: string; column_name: string; seq: string | null }>(
        `select table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) as seq
           from information_schema.columns
          where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`,
      );
      const names = new Set(tables.map((t) => t.name));
      for (const r of rows) {
        if (r.seq === null || !names.has(r.table_name)) continue;
        await held().query(
          `select setval($1, coalesce((select max(${quoteName(r.column_name)}) from ${quoteName(r.table_name)}), 0) + 1, false)`,
          [r.seq],
        );
      }
    },
    commit: async () => {
      await held().query('commit');
    },
    rollback: async () => {
      await held()
        .query('rollback')
        .catch(() => {});
    },
    close: async () => {
      connection?.release();
      connection = undefined;
      await pool.end();
    },
  };
}
