// PostgreSQL chooses each statement's plan from the statistics of its tables, which autovacuum keeps (ANALYZE once a
// tenth of a table has changed). A server can run without it (autovacuum = off), and then a table is never analysed:
// its plans are guesses, and a prepared statement keeps the generic plan it got when the table was empty for the
// life of its connection. One such guess read the whole send window of every number on each send, its cost growing
// with the send rate (docs/benchmarks.md, "Statistics"). So where autovacuum is off, the sweeper analyses each of
// this schema's tables that has changed by autovacuum's own measure (50 rows and a tenth of the table since its last
// ANALYZE); where it is on, it does nothing. ANALYZE reads a sample and blocks no reads or writes; a table's plans
// are made again after it. One process at a time (an advisory lock, tried, never waited for). SQLite needs nothing.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { dialectOf } from './prepared.js';

/** The advisory lock that one process at a time takes to analyse (any 64-bit key of this service's own). */
const ANALYZE_LOCK = 7_468_917_366_102;

export interface Statistics {
  /** Analyses the tables that need it where nothing else does; returns their names. */
  keep(): Promise<string[]>;
  /** Whether the server's autovacuum keeps them (undefined until asked; always true on SQLite). */
  kept(): Promise<boolean>;
}

export function createStatistics(db: Db): Statistics {
  let byServer: boolean | undefined;
  const kept = async (): Promise<boolean> => {
    if (dialectOf(db) !== 'postgres') return true;
    byServer ??= (await sql<{ on: boolean }>`select current_setting('autovacuum') = 'on' as on`.execute(db))
      .rows[0]?.on;
    return byServer ?? true;
  };
  return {
    kept,
    async keep() {
      if (await kept()) return [];
      return db.connection().execute(async (conn) => {
        const { rows: locked } = await sql<{
          got: boolean;
        }>`select pg_try_advisory_lock(${ANALYZE_LOCK}) as got`.execute(conn);
        if (!locked[0]?.got) return [];
        try {
          const { rows } = await sql<{ name: string }>`
            select s.relname as name from pg_stat_user_tables s join pg_class c on c.oid = s.relid
            where s.schemaname = current_schema()
              and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
            order by s.relname`.execute(conn);
          for (const { name } of rows) await sql`analyze ${sql.id(name)}`.execute(conn);
          return rows.map((r) => r.name);
        } finally {
          await sql`select pg_advisory_unlock(${ANALYZE_LOCK})`.execute(conn);
        }
      });
    },
  };
}
