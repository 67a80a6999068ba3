// SQL for carrier accounts. Functions take the database (or a transaction) first.
import type { Db } from '../store/database.js';
import type { CarrierAccountsTable } from '../store/tables.js';

export type CarrierAccountRow = CarrierAccountsTable;

export async function insertAccount(db: Db, row: CarrierAccountRow): Promise<void> {
  await db.insertInto('carrier_accounts').values(row).execute();
}

export function findAccount(db: Db, id: string): Promise<CarrierAccountRow | undefined> {
  return db.selectFrom('carrier_accounts').selectAll().where('id', '=', id).executeTakeFirst();
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
