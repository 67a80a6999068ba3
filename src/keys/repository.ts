// SQL for API keys. Functions take the database (or a transaction) first.
import type { Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { ApiKeysTable } from '../store/tables.js';

export type KeyRow = ApiKeysTable;

export function findKey(db: Db, workspaceId: string, id: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function workspaceOfKey(db: Db, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('api_keys').select('workspace_id').where('id', '=', id).executeTakeFirst();
  return row?.workspace_id;
}

export function listKeys(db: Db, workspaceId: string): Promise<KeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countActiveKeys(db: Db, workspaceId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Takes the workspace's row lock (PostgreSQL) or the write lock (SQLite) for the rest of the transaction. */
export async function lockWorkspace(db: Db, workspaceId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('workspaces')
    .set({ updated_at: now })
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertKey(db: Db, row: KeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The key, revoked now; undefined when the workspace has no such key or it was revoked already. */
export function revokeKey(db: Db, workspaceId: string, id: string, now: number): Promise<KeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** How stale last_used_at may be: it is written at most this often per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** last_used_at is written at most once a minute a key, so authentication stays a read on the hot path. */
export const touchKey = prepared((db, p: { id: string; now: number; staleBefore: number }) =>
  db
    .updateTable('api_keys')
    .set({ last_used_at: p.now })
    .where('id', '=', p.id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', p.staleBefore)])),
);
