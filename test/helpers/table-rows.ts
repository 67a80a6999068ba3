// Every row of every table of a database (SQLite or PostgreSQL), read with the drivers alone (not the code under
// test), as comparable text: integers as digits, bytes as hex, each table's rows sorted. Two databases hold the
// same data exactly when these are deepEqual.
import SQLite from 'better-sqlite3';
import pg from 'pg';

export type TableRows = Record<string, string[]>;

const MIGRATOR = ['kysely_migration', 'kysely_migration_lock'];

function text(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return `hex:${value.toString('hex')}`;
  return String(value);
}

const rowText = (row: unknown[]) => JSON.stringify(row.map(text));

export function sqliteTableNames(path: string): string[] {
  const db = new SQLite(path, { readonly: true });
  try {
    return (
      db
        .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
        .pluck()
        .all() as string[]
    )
      .filter((n) => !MIGRATOR.includes(n))
      .sort();
  } finally {
    db.close();
  }
}

export async function tableRows(url: string): Promise<TableRows> {
  const out: TableRows = {};
  if (url.startsWith('sqlite:')) {
    const db = new SQLite(url.slice('sqlite:'.length), { readonly: true });
    try {
      for (const name of sqliteTableNames(url.slice('sqlite:'.length))) {
        const columns = (
          db.prepare('select name from pragma_table_info(?) order by cid').pluck().all(name) as string[]
        )
          .map((c) => `"${c}"`)
          .join(', ');
        const rows = db
          .prepare(`select ${columns} from "${name}"`)
          .raw(true)
          .safeIntegers(true)
          .all() as unknown[][];
        out[name] = rows.map(rowText).sort();
      }
    } finally {
      db.close();
    }
    return out;
  }
  // Every value as PostgreSQL writes it (bigint as digits), bytes as bytes.
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.BYTEA
          ? pg.types.getTypeParser(oid, format)
          : (v: string) => v) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`,
    );
    for (const { name } of tables.rows) {
      if (MIGRATOR.includes(name)) continue;
      const { rows } = await client.query<unknown[]>({ text: `select * from "${name}"`, rowMode: 'array' });
      out[name] = rows.map(rowText).sort();
    }
  } finally {
    await client.end();
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
