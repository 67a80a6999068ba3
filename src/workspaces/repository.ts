// SQL for workspaces and their numbers. Functions take the database (or a transaction) first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { WorkspaceNumbersTable, WorkspacesTable } from '../store/tables.js';
import { batchesInTurn, readByKey } from '../store/turn-batch.js';

export type WorkspaceRow = WorkspacesTable;
export type NumberRow = WorkspaceNumbersTable;

export async function insertWorkspace(db: Db, row: WorkspaceRow): Promise<void> {
  await db.insertInto('workspaces').values(row).execute();
}

const workspaceById = prepared((db, p: { id: string }) =>
  db.selectFrom('workspaces').selectAll().where('id', '=', p.id),
);

export async function findWorkspace(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  return (await workspaceById(db, { id })).rows[0];
}

export function listWorkspaces(db: Db): Promise<WorkspaceRow[]> {
  return db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function insertNumber(db: Db, row: NumberRow): Promise<void> {
  await db.insertInto('workspace_numbers').values(row).execute();
}

export async function workspaceOfNumber(db: Db, numberId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('workspace_numbers')
    .select('workspace_id')
    .where('id', '=', numberId)
    .executeTakeFirst();
  return row?.workspace_id;
}

export function findNumber(db: Db, workspaceId: string, number: string): Promise<NumberRow | undefined> {
  return db
    .selectFrom('workspace_numbers')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('number', '=', number)
    .executeTakeFirst();
}

/**
 * Whether the workspace has this carrier account (a number may only send through its own workspace's), taking
 * the account's lock for the rest of the transaction (a no-op update), as removing the account does.
 */
export async function lockCarrierAccount(db: Db, workspaceId: string, carrierId: string): Promise<boolean> {
  const result = await db
    .updateTable('carrier_accounts')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', carrierId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A number with the type of the carrier account it sends through (null: the development provider). */
export type SenderRow = NumberRow & { carrier_type: string | null };

/**
 * The numbers as senders, oldest first (as listNumbers), each with its carrier's type. Read on every send: outside
 * a transaction on PostgreSQL, the sends of a turn share one statement for their workspaces (store/turn-batch.ts).
 */
export async function listSenders(db: Db, workspaceId: string): Promise<SenderRow[]> {
  const rows = batchesInTurn(db)
    ? await sendersInTurn(db, workspaceId)
    : (await sendersOf(db, { workspaceId })).rows;
  return rows.sort(bySeq);
}

const bySeq = (a: { seq: number }, b: { seq: number }) => Number(a.seq) - Number(b.seq);

// Runs on every send, so shaped for SQLite's cost (3.54, measured inside a transaction): the carrier's type as a
// scalar subquery (1 µs) rather than a left join (11 µs), and the order given in JavaScript, since an ORDER BY
// that no index serves makes SQLite set up a sorter (9 µs) for a workspace's few numbers.
const senders = (db: Db) =>
  db
    .selectFrom('workspace_numbers as n')
    .selectAll('n')
    .select((eb) =>
      eb
        .selectFrom('carrier_accounts as c')
        .select('c.type')
        .whereRef('c.id', '=', 'n.carrier_id')
        .$asScalar()
        .as('carrier_type'),
    );

const sendersOf = prepared((db, p: { workspaceId: string }) =>
  senders(db).where('n.workspace_id', '=', p.workspaceId),
);
const sendersInTurn = readByKey(
  prepared((db, p: { keys: string[] }) =>
    senders(db).where(sql<boolean>`n.workspace_id = any(${p.keys}::text[])`),
  ),
  (row) => row.workspace_id,
);

/** Oldest first: the first number gives the workspace's default country. */
export async function listNumbers(db: Db, workspaceId: string): Promise<NumberRow[]> {
  return (await numbersOf(db, { workspaceId })).rows;
}

const numbersOf = prepared((db, p: { workspaceId: string }) =>
  db.selectFrom('workspace_numbers').selectAll().where('workspace_id', '=', p.workspaceId).orderBy('seq'),
);

/** Numbers that send through the development provider (no carrier account): in one workspace, or in all. */
export function numbersWithoutCarrier(db: Db, workspaceId?: string): Promise<NumberRow[]> {
  let query = db.selectFrom('workspace_numbers').selectAll().where('carrier_id', 'is', null);
  if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
  return query.orderBy('workspace_id').orderBy('seq').execute();
}

/** The settings of a workspace: what an operator may change, and what every API request reads with its key. */
export type SettingColumn =
  | 'name'
  | 'allowed_countries'
  | 'send_limit'
  | 'send_window_seconds'
  | 'request_limit_per_minute'
  | 'guess_limit'
  | 'guess_window_seconds';

/**
 * What every API request reads of its workspace with its key: the settings, and the count of enabled webhook
 * endpoints (kept by src/webhooks/ with each endpoint's change), which says whether a state change emits events.
 */
export type RequestColumn = SettingColumn | 'webhook_endpoints';

/** The settings an operator may change; updated_at moves with every change. */
export type WorkspaceChanges = Partial<Pick<WorkspaceRow, SettingColumn>>;

export async function updateWorkspace(
  db: Db,
  id: string,
  changes: WorkspaceChanges,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('workspaces')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes the workspace's row lock (PostgreSQL) or the write lock (SQLite) for the rest of the transaction and
 * returns the row as it stands (only updated_at moves); undefined when there is no such workspace.
 */
export function lockWorkspace(db: Db, id: string, now: number): Promise<WorkspaceRow | undefined> {
  return db
    .updateTable('workspaces')
    .set({ updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Removes one number of one workspace and returns it; undefined when the workspace has no such number. */
export function deleteNumber(db: Db, workspaceId: string, numberId: string): Promise<NumberRow | undefined> {
  return db
    .deleteFrom('workspace_numbers')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', numberId)
    .returningAll()
    .executeTakeFirst();
}
