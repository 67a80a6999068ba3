// The admissions of concurrent requests, together. Every request of a workspace increments the same counter
// row. On PostgreSQL one statement per request queued them on that row's lock and on a round trip each; under
// load the API ran at a fraction of what the database could serve. Here the requests that arrive while a
// statement is under way wait for the next one (store/turn-batch.ts), which looks up all their keys and adds each
// workspace's admitted requests to its counter in one increment. On SQLite the requests of one turn of the event
// loop are admitted together: each distinct key looked up once and each window counted once (keys/admission.ts
// `sqliteBatch`), where each request made both statements of its own.
//
// The count stays exact: an increment by n reserves the n counts after the row's previous total, and each
// admitted request of the batch takes one of them in arrival order, exactly as n increments of one would have
// (the row lock orders batches across processes as it ordered single requests). A batch is one statement and so
// one transaction: it fails or succeeds whole, and each of its requests gets its outcome.
import { CompiledQuery } from 'kysely';
import type { Db } from '../store/database.js';
import type { RunBatch } from '../store/turn-batch.js';

// `admits` is keys/admission.ts's keyAdmits in SQL. The insert's rows are ordered by their key, so two batches
// that both count several workspaces take the rows' locks in the same order (no deadlock between processes).
// Its commit does not wait for the disk, as for one request (see keys/admission.ts).
const SQL = `
with input as (
  select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])
    with ordinality as t(key_hash, at, req_window, scope, ord)
),
k as (
  select input.ord, input.req_window,
    a.id, a.name, a.workspace_id, a.scopes, a.expires_at, a.revoked_at, a.last_used_at, a.mode,
    w.name as workspace_name, w.allowed_countries, w.send_limit, w.send_window_seconds, w.request_limit_per_minute,
    w.guess_limit, w.guess_window_seconds, w.webhook_endpoints,
    (a.revoked_at is null and (a.expires_at is null or a.expires_at > input.at)
      and (input.scope is null or a.scopes::jsonb @> jsonb_build_array(input.scope))) as admits
  from input
  join api_keys a on a.key_hash = input.key_hash
  join workspaces w on w.id = a.workspace_id
),
counted as (
  insert into request_counters (workspace_id, window_start, count)
  select workspace_id, req_window, count(*)::int from k where admits
  group by workspace_id, req_window
  order by workspace_id, req_window
  on conflict (workspace_id, window_start) do update set count = request_counters.count + excluded.count
  returning workspace_id, window_start, count
)
select k.*, c.count as batch_total, set_config('synchronous_commit', 'off', true) as relaxed_commit
from k left join counted c on k.admits and c.workspace_id = k.workspace_id and c.window_start = k.req_window
order by k.ord`;

export type AdmissionInputs = {
  keyHash: string;
  now: number;
  windowStart: number;
  /** The scope the route needs; null when any valid key will do. */
  scope: string | null;
};

/**
 * A key's row as the statement reads it (the columns keys/admission.ts's look-up gives, in SQL of its own), with
 * the request's count when its key admitted it.
 */
type KeyRow = { workspace_id: string } & Record<string, unknown>;
type Counted = KeyRow & { request_count: number | null };

/** A batch's row for each of its requests whose key exists: `ord` counts them from 1 in arrival order. */
export type BatchRow = KeyRow & {
  ord: number;
  req_window: number;
  admits: boolean;
  batch_total: number | null;
  relaxed_commit?: string;
};

/** Looks up a batch's keys and counts its admitted requests: one row for each request whose key exists. */
export type BatchRunner = (db: Db, batch: readonly AdmissionInputs[]) => Promise<readonly BatchRow[]>;

/** PostgreSQL: the whole batch is one statement. */
export const postgresBatch: BatchRunner = async (db, batch) => {
  const query = CompiledQuery.raw(SQL, [
    batch.map((b) => b.keyHash),
    batch.map((b) => b.now),
    batch.map((b) => b.windowStart),
    batch.map((b) => b.scope),
  ]);
  return (await db.executeQuery<BatchRow>(query)).rows;
};

/** The counter row a batch's row is counted in: its workspace's window. */
export const windowOf = (row: Pick<BatchRow, 'workspace_id' | 'req_window'>): string =>
  `${row.workspace_id} ${row.req_window}`;

/** Each admitted row's own count: the batch's increment of its window, handed out in arrival order. */
function assignCounts(rows: readonly BatchRow[]): Map<number, Counted> {
  const admittedPerWindow = new Map<string, number>();
  for (const row of rows) {
    if (!row.admits) continue;
    const window = windowOf(row);
    admittedPerWindow.set(window, (admittedPerWindow.get(window) ?? 0) + 1);
  }
  const handedOut = new Map<string, number>();
  const byOrdinal = new Map<number, Counted>();
  for (const row of rows) {
    const { ord, req_window, admits, batch_total, relaxed_commit: _, ...key } = row;
    let requestCount: number | null = null;
    if (admits && batch_total !== null) {
      const window = windowOf(row);
      const before = batch_total - (admittedPerWindow.get(window) ?? 0);
      const taken = (handedOut.get(window) ?? 0) + 1;
      handedOut.set(window, taken);
      requestCount = before + taken;
    }
    byOrdinal.set(Number(ord), { ...key, request_count: requestCount });
  }
  return byOrdinal;
}

/**
 * The batch run by `runBatch` (one runner per store), for store/turn-batch.ts: each request's key row (of type
 * `K`: its columns are the runner's, the caller names their type) with its count, or undefined for an unknown key.
 */
export function countedBatch<K>(runBatch: BatchRunner): RunBatch<AdmissionInputs, (K & Counted) | undefined> {
  return async (db, batch) => {
    const byOrdinal = assignCounts(await runBatch(db, batch));
    // Ordinals count from 1 (WITH ORDINALITY); a key that matched nothing has no row.
    return batch.map((_, i) => byOrdinal.get(i + 1) as (K & Counted) | undefined);
  };
}
