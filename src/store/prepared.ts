// Hot-path queries built and compiled once, then run many times with new values. Kysely builds an operation
// tree and compiles it to SQL on every call; a query whose shape never changes needs that once per dialect.
// The query is written as usual, naming its inputs through `p`; the first call compiles it with a placeholder
// in each input's place and remembers which parameter slot takes which input.
import {
  type Compilable,
  type CompiledQuery,
  type Insertable,
  type QueryResult,
  SqliteAdapter,
} from 'kysely';
import type { Db } from './database.js';
import type { Database } from './tables.js';

const PLACEHOLDER = '\u0000pv-input:';

type Slot = { input: string } | { value: unknown };

interface Plan {
  compiled: CompiledQuery;
  slots: Slot[];
  /** SQLite's group-commit driver, where the statement may run at once (see `runsNow`). */
  now: ImmediateRunner | undefined;
}

/**
 * A store whose statements can run synchronously, skipping Kysely's executor (its connection hand-off costs
 * more than a hot statement itself): SQLite, where the one connection is either free or held by the very
 * transaction `db` is. Returns undefined when the statement must take the usual path (the connection is held by
 * someone else's transaction, so it waits its turn there).
 */
export interface ImmediateRunner {
  runNow<R>(inTransaction: boolean, query: CompiledQuery): QueryResult<R> | undefined;
}

/** Adapters of stores that run statements at once carry their runner here. */
export const IMMEDIATE = Symbol('immediate runner');

/**
 * `build(db, p)` must pass each input on as a value (`.where('id', '=', p.id)`, `.values({ id: p.id })`), never
 * compute with it or branch on it: the shape is compiled once. Returns a runner taking the real inputs.
 */
export function prepared<P extends Record<string, unknown>, O>(
  build: (db: Db, p: P) => Compilable<O>,
): (db: Db, inputs: P) => Promise<QueryResult<O>> {
  // One plan per dialect: a transaction shares its database's adapter, so it shares the plan too.
  const plans = new WeakMap<object, Plan>();
  const inputs = new Proxy({} as P, {
    get: (_target, name) => `${PLACEHOLDER}${String(name)}`,
  });

  function planFor(db: Db): Plan {
    const adapter = db.getExecutor().adapter;
    let plan = plans.get(adapter);
    if (!plan) {
      const compiled = build(db, inputs).compile();
      if (compiled.sql.includes(PLACEHOLDER))
        throw new Error(`an input was written into the SQL: ${compiled.sql.replaceAll('\u0000', '')}`);
      const slots = compiled.parameters.map(
        (value): Slot =>
          typeof value === 'string' && value.startsWith(PLACEHOLDER)
            ? { input: value.slice(PLACEHOLDER.length) }
            : { value },
      );
      plan = { compiled, slots, now: (adapter as { [IMMEDIATE]?: ImmediateRunner })[IMMEDIATE] };
      plans.set(adapter, plan);
    }
    return plan;
  }

  return async (db, values) => {
    const { compiled, slots, now } = planFor(db);
    const parameters = slots.map((slot) => ('input' in slot ? values[slot.input] : slot.value));
    const query = { ...compiled, parameters } as CompiledQuery<O>;
    return now?.runNow<O>(db.isTransaction, query) ?? db.executeQuery<O>(query);
  };
}

/**
 * An insert of whole rows, compiled once: the columns are those of the first row given, and every later row
 * must have the same ones (a table's row type names every column, so they do).
 */
export function preparedInsert<T extends keyof Database & string>(
  table: T,
): (db: Db, row: Insertable<Database[T]>) => Promise<void> {
  let columns: string[] | undefined;
  let insert: ((db: Db, inputs: Record<string, unknown>) => Promise<QueryResult<unknown>>) | undefined;
  return async (db, row) => {
    const given = Object.keys(row);
    if (!columns || !insert) {
      const names = given;
      columns = names;
      insert = prepared((d, p: Record<string, unknown>) =>
        d.insertInto(table).values(Object.fromEntries(names.map((c) => [c, p[c]])) as never),
      );
    } else if (given.length !== columns.length) {
      throw new Error(`an insert into ${table} must give the columns ${columns.join(', ')}`);
    }
    await insert(db, row as Record<string, unknown>);
  };
}

/** Which dialect `db` (a database or a transaction) speaks, for the few statements written once for each. */
export function dialectOf(db: Db): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}
