// Statements prepared once per connection and reused, on both stores. Kysely hands its driver SQL text on every
// call; without these, SQLite prepares (parses and plans) every statement again on every call and PostgreSQL
// plans it again on every call. Neither changes what a statement does: same text, same parameters.
import { createHash } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';

/** Distinct statements kept per SQLite connection; the hot paths use a few dozen, the dashboard a few more. */
const SQLITE_CACHE_SIZE = 500;

/**
 * A parameter the SQLite planner reads while it plans (`= ?`, `is ?`, `limit ?`, `offset ?`), outside quotes.
 * Quoted strings and names match the first two branches and are left as they are.
 */
const PLANNED_PARAMETER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|(=|\bis|\blimit|\boffset)(\s*)\?/gi;

/**
 * The statement's text with a unary plus before each parameter the planner would read, so that SQLite plans it
 * once. SQLite marks a statement for re-preparation whenever a new value is bound to such a parameter: an
 * equality's `?` (the planner asks whether it is 0 or 1) and a LIMIT's or OFFSET's. better-sqlite3 clears the
 * bindings after every run, which sets that mark, so such a statement was parsed and planned again on every call
 * (10 to 20 µs each: a third of a send's SQLite time; docs/benchmarks.md). `+?` is the same value with the same
 * (no) affinity and collation, and the same index use; only the planner no longer reads it.
 */
export function withStablePlan(source: string): string {
  return source.replace(PLANNED_PARAMETER, (match, operator: string | undefined, space: string) =>
    operator === undefined ? match : `${operator}${space}+?`,
  );
}

/**
 * better-sqlite3's prepare(), memoised by SQL text, each statement planned once (`withStablePlan`). A prepared
 * statement is safe to reuse here: calls are synchronous, so no two executions interleave on one statement.
 *
 * Bounded by a second chance (CLOCK), not by moving each statement to the back of the map on every use: a hit
 * only marks its entry. A `Map`'s delete and set on every statement (15 a send) left a hole each time, and the map
 * rebuilt its table every few hundred statements; the tables, held by the long-lived map, died in the old
 * generation, 2 to 3 MB a second under load, and made a major collection every 5 s (docs/benchmarks.md).
 */
export function cacheSqliteStatements(database: SQLite.Database): SQLite.Database {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, { statement: SQLite.Statement; used: boolean }>();
  database.prepare = ((source: string) => {
    const hit = cache.get(source);
    if (hit) {
      hit.used = true;
      return hit.statement;
    }
    if (cache.size >= SQLITE_CACHE_SIZE) evictOne(cache);
    const statement = prepare(withStablePlan(source));
    cache.set(source, { statement, used: false });
    return statement;
  }) as SQLite.Database['prepare'];
  return database;
}

/**
 * Drops the oldest entry not used since it was last passed over; one used meanwhile goes to the back, unmarked.
 * Ends within one round of the map: by then every entry passed over is unmarked.
 */
function evictOne(cache: Map<string, { used: boolean }>): void {
  for (const [source, entry] of cache) {
    cache.delete(source);
    if (!entry.used) return;
    entry.used = false;
    cache.set(source, entry);
  }
}

/** PostgreSQL: "cached plan must not change result type" (a migration changed a table under a prepared `*`). */
const PLAN_INVALIDATED = '0A000';

const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `pv_${createHash('sha1').update(text).digest('base64url')}`;
    // Bounded: the statements of this service are a fixed set, but a caller's ad-hoc SQL must not grow it forever.
    if (names.size >= 2000) names.clear();
    names.set(text, name);
  }
  return name;
}

/**
 * Turns every parameterised query of a pooled client into a named prepared statement (name: a hash of the
 * text), which pg prepares once per connection and then only binds. A statement whose plan a schema change
 * invalidated runs unnamed from then on, on that connection.
 */
/** Where the statements' durations go, set once the pool exists (undefined: not timed). */
export interface QueryTiming {
  observe: ((seconds: number) => void) | undefined;
}

export function prepareNamedStatements(client: pg.PoolClient, timing?: QueryTiming): void {
  const untimed = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
  // Each statement's round trip (what the store runs: text and values), timed once a serving process asks.
  const query = async (...args: unknown[]): Promise<pg.QueryResult> => {
    const observe = timing?.observe;
    if (!observe) return untimed(...args);
    const started = performance.now();
    try {
      return await untimed(...args);
    } finally {
      observe((performance.now() - started) / 1000);
    }
  };
  const invalidated = new Set<string>();
  const named = async (text: string, values: unknown[]): Promise<pg.QueryResult> => {
    const name = statementName(text);
    if (invalidated.has(name)) return query(text, values);
    try {
      return await query({ name, text, values });
    } catch (err) {
      if ((err as { code?: string }).code !== PLAN_INVALIDATED) throw err;
      invalidated.add(name);
      return query(text, values);
    }
  };
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values) && args.length === 2) return named(text, values);
    // Anything else (a cursor's submittable, a callback) passes through as pg returns it.
    return untimed(...args);
  }) as typeof client.query;
}
