// Query plans and index lists, in either store's words, for the tests that prove a statement reads through the
// index it was written for (sweep-indexes.test.ts, write-cost.test.ts).
import { type Compilable, CompiledQuery, sql } from 'kysely';
import type { Db } from '../../src/store/database.js';
import { dialectOf } from '../../src/store/prepared.js';

/**
 * The plan of `query` as text, SQLite's as is. PostgreSQL's is told to prefer a plain index scan: a test's tables
 * are near empty, where it would rather read the table whole, or fetch the rows by a bitmap and sort them; told
 * otherwise, the plan shows whether an index finds the rows and gives their order.
 */
export async function planOf(db: Db, query: Compilable): Promise<string> {
  const { sql: text, parameters } = query.compile();
  if (dialectOf(db) === 'postgres') {
    return db.transaction().execute(async (tx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(tx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(tx);
      const plan = await tx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`EXPLAIN ${text}`, [...parameters]),
      );
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }
  const plan = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]),
  );
  return plan.rows.map((r) => r.detail).join('\n');
}

/**
 * A read of the whole table, or a sort of what it found, in either store's words. A batch's own rows (the CTE
 * `batch` of store/locked-batch.ts, a few hundred found through an index) are read whole by design.
 */
export const WHOLE_OR_SORTED = /SCAN (?!batch\b)\w+\b(?! USING)|Seq Scan|TEMP B-TREE|Sort/;

/** The table's indexes by name (SQLite's automatic key indexes left out; PostgreSQL's key index included). */
export async function indexesOf(db: Db, table: string): Promise<string[]> {
  const { rows } =
    dialectOf(db) === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename = ${table}`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'index' and tbl_name = ${table} and name not like 'sqlite_autoindex%'`.execute(db);
  return rows.map((r) => r.name).sort();
}
