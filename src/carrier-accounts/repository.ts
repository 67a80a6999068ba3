// SQL for carrier accounts. Functions take the database (or a transaction) first.
import type { Db } from '../store/database.js';
import type { CarrierAccountsTable, WorkspaceNumbersTable } from '../store/tables.js';

export type CarrierAccountRow = CarrierAccountsTable;

export async function insertAccount(db: Db, row: CarrierAccountRow): Promise<void> {
  await db.insertInto('carrier_accounts').values(row).execute();
}

export function findAccount(db: Db, id: string): Promise<CarrierAccountRow | undefined> {
  return db.selectFrom('carrier_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The ids of every account of one type, in any workspace (for sessions a process holds open). */
export async function accountIdsOfType(db: Db, type: string): Promise<Set<string>> {
  const rows = await db.selectFrom('carrier_accounts').select('id').where('type', '=', type).execute();
  return new Set(rows.map((r) => r.id));
}

/** Every account's sealed credentials, in any workspace, by id. */
export async function listSealedCredentials(db: Db): Promise<{ owner: string; sealed: string }[]> {
  return db
    .selectFrom('carrier_accounts')
    .select(['id as owner', 'credentials as sealed'])
    .orderBy('id')
    .execute();
}

/** Swaps the sealed credentials if they are still `from`: a rotation made meanwhile stays. False if not. */
export async function replaceCredentials(db: Db, id: string, from: string, to: string): Promise<boolean> {
  const result = await db
    .updateTable('carrier_accounts')
    .set({ credentials: to })
    .where('id', '=', id)
    .where('credentials', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Oldest first. */
export function listAccounts(db: Db, workspaceId: string): Promise<CarrierAccountRow[]> {
  return db
    .selectFrom('carrier_accounts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Takes the account's row lock (PostgreSQL) or the write lock (SQLite) for the rest of the transaction, with a
 * no-op update: removing an account and tying a number to it serialise on it. Undefined when the workspace has
 * no such account.
 */
export function lockAccount(db: Db, workspaceId: string, id: string): Promise<CarrierAccountRow | undefined> {
  return db
    .updateTable('carrier_accounts')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirst();
}

/** The workspace's numbers that send through some account: (account, E.164) pairs, oldest number first. */
export function tiedNumbers(db: Db, workspaceId: string): Promise<{ carrier_id: string; number: string }[]> {
  return db
    .selectFrom('workspace_numbers')
    .select(['carrier_id', 'number'])
    .where('workspace_id', '=', workspaceId)
    .where('carrier_id', 'is not', null)
    .orderBy('seq')
    .execute() as Promise<{ carrier_id: string; number: string }[]>;
}

export async function deleteAccount(db: Db, workspaceId: string, id: string): Promise<void> {
  await db
    .deleteFrom('carrier_accounts')
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .execute();
}

/** New sealed credentials (and base URL, when given); false when the workspace has no such account. */
export async function updateAccount(
  db: Db,
  workspaceId: string,
  id: string,
  changes: Partial<Pick<CarrierAccountRow, 'credentials' | 'base_url'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('carrier_accounts')
    .set(changes)
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes one number's row lock (PostgreSQL) or the write lock (SQLite) for the rest of the transaction, with a
 * no-op update, and returns the number as it stands; undefined when the workspace has no such number.
 */
export function lockNumber(
  db: Db,
  workspaceId: string,
  numberId: string,
): Promise<WorkspaceNumbersTable | undefined> {
  return db
    .updateTable('workspace_numbers')
    .set((eb) => ({ carrier_id: eb.ref('carrier_id') }))
    .where('id', '=', numberId)
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirst();
}

/** Points one number of the workspace at an account (null: the development provider); undefined: no such number. */
export function setNumberCarrier(
  db: Db,
  workspaceId: string,
  numberId: string,
  carrierId: string | null,
): Promise<WorkspaceNumbersTable | undefined> {
  return db
    .updateTable('workspace_numbers')
    .set({ carrier_id: carrierId })
    .where('id', '=', numberId)
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirst();
}
