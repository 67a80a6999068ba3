// Hot-path queries built and compiled once, then run many times with new values. Kysely builds an operation
// tree and compiles it to SQL on every call; a query whose shape never changes needs that once per dialect.
// The query is written as usual, naming its inputs through `p`; the first call compiles it with a placeholder
// in each input's place and remembers which parameter slot takes which input.
import { type Compilable, CompiledQuery, type Insertable, type QueryResult, SqliteAdapter } from 'kysely';
import type { Db } from './database.js';
import { type Ahead, sendAhead } from './postgres-pipeline.js';
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
): Prepared<P, O> {
  const bind = binder(build);
  const runner = async (db: Db, values: P) => {
    // What this transaction holds back is sent first: this statement may read it.
    if (held.has(db)) await sendHeld(db);
    return run(db, bind(db, values));
  };
  return Object.assign(runner, {
    async ahead(db: Db, values: P): Promise<Ahead<O>> {
      if (!db.isTransaction || dialectOf(db) !== 'postgres')
        return { answer: Promise.resolve(await runner(db, values)) };
      if (held.has(db)) await sendHeld(db);
      return sendAhead<O>(db, bind(db, values).query);
    },
  });
}

/** A statement compiled once (`prepared`): run it, or send it ahead of the next one. */
export interface Prepared<P, O> {
  (db: Db, inputs: P): Promise<QueryResult<O>>;
  /**
   * In a PostgreSQL transaction, writes the statement without waiting for its answer (store/postgres-pipeline.ts
   * `sendAhead`; resolves once written): the transaction's next statement, or its commit, follows in the same round
   * trip. Elsewhere the statement runs, and this resolves once it has.
   */
  ahead(db: Db, inputs: P): Promise<Ahead<O>>;
}

type Bound<O> = { query: CompiledQuery<O>; now: ImmediateRunner | undefined };

function run<O>(db: Db, { query, now }: Bound<O>): Promise<QueryResult<O>> {
  return Promise.resolve(now?.runNow<O>(db.isTransaction, query) ?? db.executeQuery<O>(query));
}

/** `prepared`'s plan without the run: the statement bound to each call's inputs. */
function binder<P extends Record<string, unknown>, O>(
  build: (db: Db, p: P) => Compilable<O>,
): (db: Db, inputs: P) => Bound<O> {
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

  return (db, values) => {
    const { compiled, slots, now } = planFor(db);
    const parameters = slots.map((slot) => ('input' in slot ? values[slot.input] : slot.value));
    return { query: { ...compiled, parameters } as CompiledQuery<O>, now };
  };
}

/**
 * PostgreSQL transactions holding back their whole-row inserts (`holdInserts`), with the inserts they hold. Keyed
 * by the transaction: another request's transaction holds nothing of this one's.
 */
const held = new WeakMap<Db, CompiledQuery[]>();

/**
 * Runs `body` with the whole-row inserts it makes in transaction `tx` (`preparedInsert`, `preparedInsertRows`)
 * held back and sent as one statement: on PostgreSQL, one round trip for all of them where each was one. They
 * are sent, in the order made, before any other statement of `tx` that goes through `prepared` (it may read them)
 * and when `body` ends, each time without waiting for their answer (store/postgres-pipeline.ts `sendAhead`): the
 * next statement, or the commit, goes in the same round trip. A failure of any of them fails that next statement or
 * the commit, and so the transaction, as it would have failed the insert. Only for a stretch of code whose statements all go through `prepared`: a statement made
 * otherwise would not see what is held. On SQLite (statements are calls into this process) and outside a
 * transaction, the inserts run as they are made.
 */
export async function holdInserts<T>(tx: Db, body: () => Promise<T>): Promise<T> {
  if (!tx.isTransaction || held.has(tx) || dialectOf(tx) !== 'postgres') return body();
  held.set(tx, []);
  try {
    const result = await body();
    // Sent ahead: the commit goes with it, one round trip for both, and fails if it failed.
    await sendHeld(tx);
    return result;
  } finally {
    held.delete(tx);
  }
}

/**
 * Sends what `db` holds back, without waiting for its answer (resolves once written): the next statement, or the
 * commit, follows it in the same round trip, and fails if it failed.
 */
async function sendHeld(db: Db): Promise<void> {
  const queries = held.get(db);
  if (!queries || queries.length === 0) return;
  held.set(db, []);
  await sendAhead(db, queries.length === 1 ? (queries[0] as CompiledQuery) : asOneStatement(queries));
}

/** The combined text of each sequence of insert texts seen (a few: a send's inserts vary by path and event count). */
const combined = new Map<string, string>();

/**
 * PostgreSQL inserts as one statement: every insert but the last a data-modifying CTE (`with held_0 as (insert …),
 * … insert …`), each one's `$n` numbered after the parameters of those before it. The statements run in one
 * snapshot and every row is inserted; the text is the same for the same inserts, so it is made and prepared once.
 */
function asOneStatement(queries: readonly CompiledQuery[]): CompiledQuery {
  const key = queries.map((q) => q.sql).join('\u0000');
  let text = combined.get(key);
  if (text === undefined) {
    const parts: string[] = [];
    let shift = 0;
    for (const query of queries) {
      if (!/^insert into "[a-z_]+" \(/.test(query.sql))
        throw new Error(`not a whole-row insert: ${query.sql}`);
      const offset = shift;
      parts.push(query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`));
      shift += query.parameters.length;
    }
    const last = parts.pop();
    text = `with ${parts.map((sql, i) => `held_${i} as (${sql})`).join(', ')} ${last}`;
    // Bounded like the statement names (statement-cache.ts): the sequences are few, but nothing may grow forever.
    if (combined.size >= 200) combined.clear();
    combined.set(key, text);
  }
  return CompiledQuery.raw(
    text,
    queries.flatMap((q) => q.parameters),
  );
}

/**
 * An insert of whole rows, compiled once: the columns are those of the first row given, and every later row
 * must have the same ones (a table's row type names every column, so they do).
 */
export function preparedInsert<T extends keyof Database & string>(
  table: T,
): (db: Db, row: Insertable<Database[T]>) => Promise<void> {
  const insertRows = preparedInsertRows(table);
  return (db, row) => insertRows(db, [row]);
}

/** The most rows one statement of `preparedInsertRows` takes: each count is a statement of its own, cached. */
export const ROWS_PER_INSERT = 32;

/**
 * An insert of several whole rows in one statement (one round trip), compiled once for each number of rows up to
 * ROWS_PER_INSERT (more go in several statements); columns as for `preparedInsert`.
 */
export function preparedInsertRows<T extends keyof Database & string>(
  table: T,
): (db: Db, rows: readonly Insertable<Database[T]>[]) => Promise<void> {
  let columns: string[] | undefined;
  const inserts: ((db: Db, inputs: Record<string, unknown>) => Bound<unknown>)[] = [];
  // The inputs' names of row i ("i.column"), made once.
  const inputNames: string[][] = [];
  const insertFor = (count: number, names: string[]) => {
    inserts[count] ??= binder((d, p: Record<string, unknown>) =>
      d
        .insertInto(table)
        .values(
          Array.from(
            { length: count },
            (_, i) =>
              Object.fromEntries(names.map((c, j) => [c, p[namesOf(i, names)[j] as string]])) as never,
          ),
        ),
    );
    return inserts[count];
  };
  const namesOf = (i: number, names: string[]) => {
    inputNames[i] ??= names.map((c) => `${i}.${c}`);
    return inputNames[i];
  };
  return async (db, rows) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      columns ??= Object.keys(chunk[0] as object);
      const names = columns;
      const inputs: Record<string, unknown> = {};
      chunk.forEach((row, i) => {
        const given = row as Record<string, unknown>;
        if (Object.keys(given).length !== names.length)
          throw new Error(`an insert into ${table} must give the columns ${names.join(', ')}`);
        const keys = namesOf(i, names);
        names.forEach((c, j) => {
          inputs[keys[j] as string] = given[c];
        });
      });
      const bound = insertFor(chunk.length, names)(db, inputs);
      const holding = held.get(db);
      if (holding) holding.push(bound.query);
      else await run(db, bound);
    }
  };
}

/** Which dialect `db` (a database or a transaction) speaks, for the few statements written once for each. */
export function dialectOf(db: Db): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}
