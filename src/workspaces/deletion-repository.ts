// SQL for deleting a workspace: every row that belongs to it, in one transaction the caller holds, children before
// the rows they reference. The audit trail is kept (it is the record of the deletion, pruned by its own retention).
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/prepared.js';
import type { Database } from '../store/tables.js';

/**
 * Every table holding a workspace's rows by `workspace_id`, in the order they are deleted (a row before any it
 * references). test/workspaces/delete.test.ts finds each table with a workspace_id column in the live schema and
 * fails for one missing here: a table added later must say here whether it goes with its workspace.
 */
export const WORKSPACE_TABLES = [
  'verification_events',
  'delivery_jobs',
  'webhook_attempts',
  'webhook_messages',
  'webhook_endpoints',
  'refused_sends',
  'outbox_messages',
  'test_numbers',
  'idempotency_keys',
  'guess_failures',
  'phone_locks',
  'request_counters',
  'verification_rollups',
  'verification_counts',
  'phone_directory',
  'fraud_range_numbers',
  'fraud_ranges',
  'fraud_blocks',
  'fraud_allow',
  'fraud_settings',
  'verifications',
  'api_keys',
  'workspace_numbers',
  'carrier_accounts',
  'memberships',
] as const satisfies readonly (keyof Database)[];

/** Tables with a workspace_id that are not deleted with it: the audit trail, and sessions (only unpointed). */
export const KEPT_TABLES = ['audit_log', 'sessions'] as const satisfies readonly (keyof Database)[];

export type WorkspaceCounts = Record<
  'keys' | 'numbers' | 'carrier_accounts' | 'members' | 'verifications',
  number
>;

async function count(db: Db, table: keyof Database, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the workspace holds, as an operator weighs a deletion. */
export async function countWorkspace(db: Db, workspaceId: string): Promise<WorkspaceCounts> {
  return {
    keys: await count(db, 'api_keys', workspaceId),
    numbers: await count(db, 'workspace_numbers', workspaceId),
    carrier_accounts: await count(db, 'carrier_accounts', workspaceId),
    members: await count(db, 'memberships', workspaceId),
    verifications: await count(db, 'verifications', workspaceId),
  };
}

/** The account ids that are members of the workspace. */
export async function memberIds(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('workspace_id', '=', workspaceId)
    .execute();
  return rows.map((r) => r.user_id);
}

/**
 * The workspace's row, locked for the rest of the transaction. On PostgreSQL FOR UPDATE, which also waits for the
 * transactions that are inserting rows referencing it (a send in flight) and holds back new ones until the
 * deletion commits, so none is left behind; SQLite's one writer serialises it with every write already.
 */
export function lockWorkspaceForDeletion(tx: Db, workspaceId: string) {
  const query = tx.selectFrom('workspaces').select(['id', 'name']).where('id', '=', workspaceId);
  return (dialectOf(tx) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

/** Deletes every row of the workspace but its audit trail, then the workspace; sessions looking at it look at none. */
export async function deleteWorkspaceRows(tx: Db, workspaceId: string): Promise<void> {
  for (const table of WORKSPACE_TABLES) {
    await tx.deleteFrom(table).where('workspace_id', '=', workspaceId).execute();
  }
  await tx
    .updateTable('sessions')
    .set({ workspace_id: null })
    .where('workspace_id', '=', workspaceId)
    .execute();
  await tx.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
}
