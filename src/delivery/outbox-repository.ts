// SQL for the development provider's outbox. Functions take the database (or a transaction) first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { preparedInsert } from '../store/prepared.js';
import type { OutboxMessagesTable } from '../store/tables.js';
import type { Mode } from '../vocabulary/modes.js';

export type OutboxRow = OutboxMessagesTable;

export const insertMessage = preparedInsert('outbox_messages');

export interface OutboxFilter {
  /** Only this workspace's messages (the dashboard's inbox); every workspace when absent (the CLI). */
  workspaceId?: string;
  /** Exactly this destination (E.164). */
  to?: string;
  /** Destinations containing these digits: the inbox's search box, which takes part of a number. */
  toDigits?: string;
  /** Only messages older than this one (its seq): the inbox's older pages. */
  beforeSeq?: number;
  /** Only messages of this mode (the inbox: live unless its "Test data" toggle asks); both when absent (the CLI). */
  mode?: Mode;
  limit: number;
}

export function listMessages(db: Db, filter: OutboxFilter): Promise<OutboxRow[]> {
  let query = db.selectFrom('outbox_messages').selectAll();
  if (filter.workspaceId) query = query.where('workspace_id', '=', filter.workspaceId);
  if (filter.to) query = query.where('to_number', '=', filter.to);
  // Digits only, so the pattern holds no LIKE wildcards of the user's.
  if (filter.toDigits && /^\d+$/.test(filter.toDigits)) {
    query = query.where('to_number', 'like', `%${filter.toDigits}%`);
  }
  if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
  if (filter.mode) query = query.where('mode', '=', filter.mode);
  return query.orderBy('seq', 'desc').limit(filter.limit).execute();
}

/**
 * The late reports due, through the partial index of those not applied (migration 0019-sweep-indexes):
 * `report_applied = 0` is written as the index's own literal, so that SQLite, which does not read a bound value to
 * choose a partial index, uses it.
 */
export function dueReportsQuery(db: Db, now: number) {
  return db
    .selectFrom('outbox_messages')
    .selectAll()
    .where(sql<boolean>`report_applied = 0`)
    .where('report_due_at', '<=', now)
    .orderBy('report_due_at')
    .limit(100);
}

export function dueReports(db: Db, now: number): Promise<OutboxRow[]> {
  return dueReportsQuery(db, now).execute();
}

/** Claims a due report: true for exactly one caller, however many processes sweep at once. */
export async function claimReport(db: Db, id: string): Promise<boolean> {
  const result = await db
    .updateTable('outbox_messages')
    .set({ report_applied: 1 })
    .where('id', '=', id)
    .where('report_applied', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
