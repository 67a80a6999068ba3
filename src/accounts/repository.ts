// SQL for users, memberships, sessions and sign-in throttling. Functions take the database (or a transaction) first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/prepared.js';
import type { SessionsTable, UsersTable } from '../store/tables.js';

export type UserRow = UsersTable;
export type SessionRow = SessionsTable;

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(db: Db, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** Replaces the hash only if it is still `from`: a change made meanwhile is never overwritten. */
export async function replacePasswordHash(db: Db, userId: string, from: string, to: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: to })
    .where('id', '=', userId)
    .where('password_hash', '=', from)
    .execute();
}

/** False when the account was a member already (nothing changes then). */
export async function addMembership(
  db: Db,
  userId: string,
  workspaceId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .insertInto('memberships')
    .values({ user_id: userId, workspace_id: workspaceId, role: 'owner', created_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'workspace_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** A workspace's members, oldest membership first. */
export function listMembers(db: Db, workspaceId: string): Promise<{ id: string; email: string }[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email'])
    .where('memberships.workspace_id', '=', workspaceId)
    .orderBy('memberships.created_at')
    .orderBy('users.id')
    .execute();
}

/** The user's workspaces, oldest membership first. */
export function listUserWorkspaces(db: Db, userId: string): Promise<{ id: string; name: string }[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['workspaces.id', 'workspaces.name'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('workspaces.id')
    .execute();
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export function findSession(db: Db, tokenHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function updateSession(
  db: Db,
  tokenHash: string,
  changes: Partial<Pick<SessionRow, 'workspace_id' | 'last_seen_at'>>,
): Promise<void> {
  await db.updateTable('sessions').set(changes).where('token_hash', '=', tokenHash).execute();
}

/**
 * Takes one unit of `key`'s sign-in budget in the window, unless `limit` units are taken already; true when
 * taken. One statement (an upsert whose update is conditional): concurrent takers never pass the limit.
 */
export async function takeSigninUnit(
  db: Db,
  key: string,
  windowStart: number,
  limit: number,
): Promise<boolean> {
  const row = await db
    .insertInto('signin_throttle')
    .values({ key, window_start: windowStart, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['key', 'window_start'])
        .doUpdateSet({ count: sql<number>`signin_throttle.count + 1` })
        .where('signin_throttle.count', '<', limit),
    )
    .returning('count')
    .executeTakeFirst();
  return row !== undefined;
}

export async function giveBackSigninUnits(db: Db, keys: string[], windowStart: number): Promise<void> {
  await db
    .updateTable('signin_throttle')
    .set({ count: sql<number>`count - 1` })
    .where('key', 'in', keys)
    .where('window_start', '=', windowStart)
    .where('count', '>', 0)
    .execute();
}

export async function deleteSigninWindowsBefore(db: Db, windowStart: number): Promise<number> {
  const result = await db
    .deleteFrom('signin_throttle')
    .where('window_start', '<', windowStart)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteSessionsExpiredBy(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every account, oldest first. */
export function listUsers(db: Db): Promise<Pick<UserRow, 'id' | 'email' | 'created_at'>[]> {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'created_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Every membership with its workspace's name, oldest first (account list groups them by account). */
export function listAllMemberships(db: Db): Promise<{ user_id: string; id: string; name: string }[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['memberships.user_id', 'workspaces.id', 'workspaces.name'])
    .orderBy('memberships.created_at')
    .orderBy('workspaces.id')
    .execute();
}

/**
 * The number of members of the workspace, its row locked for the rest of the transaction (PostgreSQL FOR UPDATE;
 * SQLite's write transactions are serialised already): two removals of its last two members cannot both see two.
 * Undefined for a workspace that no longer exists.
 */
export async function lockAndCountMembers(db: Db, workspaceId: string): Promise<number | undefined> {
  const lock = db.selectFrom('workspaces').select('id').where('id', '=', workspaceId);
  const locked = await (dialectOf(db) === 'postgres' ? lock.forUpdate() : lock).executeTakeFirst();
  if (!locked) return undefined;
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ends every session of the account; how many there were. */
export async function deleteSessionsOf(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The account, its memberships and its sessions (its audit entries stay: they are the workspaces' history). */
export async function deleteUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await db.deleteFrom('memberships').where('user_id', '=', userId).execute();
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

export async function setPasswordHash(db: Db, userId: string, hash: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: hash })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Forgets every window's failed sign-ins of one budget (`email:…`): the account's sign-in lock is lifted. */
export async function deleteSigninCounts(db: Db, key: string): Promise<void> {
  await db.deleteFrom('signin_throttle').where('key', '=', key).execute();
}
