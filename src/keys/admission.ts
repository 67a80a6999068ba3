// Admission of an API request: its key looked up, with the workspace settings requests use, and the request
// counted in the workspace's window (limits/request-limit.ts) when the key is active and holds the route's
// scope. Refused keys and scopes are not counted.
//
// The requests that arrive together are admitted together (keys/admission-batch.ts). On SQLite, those of one
// turn of the event loop: each distinct key looked up once and each workspace's window counted once, by the
// number the turn admitted. On PostgreSQL it is one statement (one round trip) for the lot, and its commit does
// not wait for the write-ahead log to reach the disk: every request of a workspace increments the same counter
// row, so with a synchronous commit the row's lock would be held for a disk flush per statement. The count stays
// exact across processes (the row lock orders the increments, and each is visible at once); what a database
// crash may lose is the last fraction of a second of counts, which lets that many requests too many through
// after the crash.
import type { QueryCreator } from 'kysely';
import { countRequests } from '../limits/request-limit.js';
import type { Db } from '../store/database.js';
import { dialectOf, prepared } from '../store/prepared.js';
import type { Database } from '../store/tables.js';
import { turnBatched } from '../store/turn-batch.js';
import {
  type AdmissionInputs,
  type BatchRow,
  type BatchRunner,
  countedBatch,
  postgresBatch,
  windowOf,
} from './admission-batch.js';

/**
 * The key and the settings of its workspace that requests use: one join on the workspace's primary key. (Its
 * columns were once scalar subqueries: SQLite re-planned the join on every call then, which made it four times
 * slower than the subqueries; planned once (store/statement-cache.ts), the join is the quicker of the two.)
 */
function keyLookup(qc: QueryCreator<Database>, keyHash: string) {
  return qc
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.workspace_id',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'api_keys.mode',
      'workspaces.name as workspace_name',
      'workspaces.allowed_countries',
      'workspaces.send_limit',
      'workspaces.send_window_seconds',
      'workspaces.request_limit_per_minute',
      'workspaces.guess_limit',
      'workspaces.guess_window_seconds',
      'workspaces.webhook_endpoints',
    ])
    .where('api_keys.key_hash', '=', keyHash);
}

const findKey = prepared((db, p: { keyHash: string }) => keyLookup(db, p.keyHash));
export type KeyLookupRow = NonNullable<Awaited<ReturnType<typeof findKey>>['rows'][number]>;
export type AdmissionRow = KeyLookupRow & { request_count: number | null };

/** Whether a request with this key is counted (and may go on): the key is active and holds the scope. */
export function keyAdmits(
  row: Pick<KeyLookupRow, 'revoked_at' | 'expires_at' | 'scopes'>,
  now: number,
  scope: string | null,
): boolean {
  if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) return false;
  return scope === null || (JSON.parse(row.scopes) as string[]).includes(scope);
}

/**
 * SQLite: a batch's keys looked up (each distinct one once, so all of the batch see the same row) and each
 * window's admitted requests counted in one increment, each of them then taking its own count in arrival order
 * (admission-batch.ts). As for a single request, the look-up and the count are two statements: a key revoked
 * between them still has this batch counted, and the next request sees the revocation.
 */
const sqliteBatch: BatchRunner = async (db, batch) => {
  const keys = new Map<string, KeyLookupRow | undefined>();
  for (const { keyHash } of batch) {
    if (!keys.has(keyHash)) keys.set(keyHash, (await findKey(db, { keyHash })).rows[0]);
  }
  const rows: BatchRow[] = [];
  const windows = new Map<string, BatchRow[]>();
  for (const [i, p] of batch.entries()) {
    const key = keys.get(p.keyHash);
    if (!key) continue;
    const row: BatchRow = {
      ...key,
      ord: i + 1,
      req_window: p.windowStart,
      admits: keyAdmits(key, p.now, p.scope),
      batch_total: null,
    };
    rows.push(row);
    if (!row.admits) continue;
    const window = windowOf(row);
    const admitted = windows.get(window);
    if (admitted) admitted.push(row);
    else windows.set(window, [row]);
  }
  for (const admitted of windows.values()) {
    const { workspace_id: workspaceId, req_window: windowStart } = admitted[0] as BatchRow;
    const [counted] = (await countRequests(db, { workspaceId, windowStart, n: admitted.length })).rows;
    for (const row of admitted) row.batch_total = counted?.count ?? null;
  }
  return rows;
};

const admitOnPostgres = turnBatched(countedBatch<KeyLookupRow>(postgresBatch));
const admitOnSqlite = turnBatched(countedBatch<KeyLookupRow>(sqliteBatch));

/** The key of `keyHash` with its request counted when it admits one; undefined for an unknown key. */
export function admit(db: Db, p: AdmissionInputs): Promise<AdmissionRow | undefined> {
  return (dialectOf(db) === 'postgres' ? admitOnPostgres : admitOnSqlite)(db, p);
}
