// Admission of an API request: its key looked up, with the workspace settings requests use, and the request
// counted in the workspace's window (limits/request-limit.ts) when the key is active and holds the route's
// scope. Refused keys and scopes are not counted.
//
// On SQLite that is two statements of a few microseconds each. On PostgreSQL it is one statement (one round
// trip) for all the requests that arrive together (keys/admission-batch.ts), and its commit does not wait for the
// write-ahead log to reach the disk: every request of a workspace increments the same counter row, so with a
// synchronous commit the row's lock would be held for a disk flush per statement. The count stays exact across processes
// (the row lock orders the increments, and each is visible at once); what a database crash may lose is the
// last fraction of a second of counts, which lets that many requests too many through after the crash.
import type { QueryCreator } from 'kysely';
import { countRequest } from '../limits/request-limit.js';
import type { Db } from '../store/database.js';
import { dialectOf, prepared } from '../store/prepared.js';
import type { Database } from '../store/tables.js';
import { type AdmissionInputs, admitInBatch } from './admission-batch.js';

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

/** The key of `keyHash` with its request counted when it admits one; undefined for an unknown key. */
export async function admit(db: Db, p: AdmissionInputs): Promise<AdmissionRow | undefined> {
  if (dialectOf(db) === 'postgres') return admitInBatch<KeyLookupRow>(db, p);
  const row = (await findKey(db, { keyHash: p.keyHash })).rows[0];
  if (!row) return undefined;
  if (!keyAdmits(row, p.now, p.scope)) return { ...row, request_count: null };
  const counted = (await countRequest(db, { workspaceId: row.workspace_id, windowStart: p.windowStart }))
    .rows[0];
  return { ...row, request_count: counted?.count ?? null };
}
