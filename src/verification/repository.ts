// SQL for verifications. Every race-prone step is one statement (or runs inside the caller's transaction),
// and each says which invariant it keeps. Functions take the database (or a transaction) first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { VerificationsTable } from '../store/tables.js';
import type { Status } from './statuses.js';

export type VerificationRow = VerificationsTable;

export async function insertVerification(db: Db, row: VerificationRow): Promise<void> {
  await db.insertInto('verifications').values(row).execute();
}

export function findVerification(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** The number's pending verification where there is one, else its newest. */
export async function findForPhone(
  db: Db,
  workspaceId: string,
  phone: string,
): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('phone', '=', phone)
    .orderBy(sql`CASE WHEN status = 'pending' THEN 0 ELSE 1 END`)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Serialises sends to one number for the rest of the transaction: a row lock in PostgreSQL, the write lock in
 * SQLite. Taken first, so the send limit's count and the supersede below see every earlier send. Returns the
 * send's ordinal for the number, which orders its verifications without relying on clock resolution.
 */
export async function lockPhone(db: Db, workspaceId: string, phone: string, now: number): Promise<number> {
  const row = await db
    .insertInto('phone_locks')
    .values({ workspace_id: workspaceId, phone, touched_at: now, seq: 1 })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'phone'])
        .doUpdateSet({ touched_at: now, seq: sql<number>`phone_locks.seq + 1` }),
    )
    .returning('seq')
    .executeTakeFirstOrThrow();
  return row.seq;
}

/** Creation times of the number's verifications since `since`, oldest first (for the send limit). */
export async function sendTimesSince(
  db: Db,
  workspaceId: string,
  phone: string,
  since: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('verifications')
    .select('created_at')
    .where('workspace_id', '=', workspaceId)
    .where('phone', '=', phone)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.created_at);
}

export interface SupersededRow {
  id: string;
  /** canceled, or expired where its time had already run out. */
  status: string;
  expires_at: number;
}

/**
 * Supersede: the number's pending code dies (or is recorded expired, if its time had already run out).
 * Returns the rows it changed, so each gets its timeline event.
 */
export function supersedePending(
  db: Db,
  workspaceId: string,
  phone: string,
  now: number,
): Promise<SupersededRow[]> {
  return db
    .updateTable('verifications')
    .set({
      status: sql<Status>`CASE WHEN expires_at <= ${now} THEN 'expired' ELSE 'canceled' END`,
      updated_at: now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('phone', '=', phone)
    .where('status', '=', 'pending')
    .returning(['id', 'status', 'expires_at'])
    .execute();
}

/**
 * Persists expiry of one verification if it is due; a no-op otherwise. True only for the caller whose
 * statement changed the row: of several racing readers exactly one records the expiry.
 */
export async function expireIfDue(db: Db, id: string, now: number): Promise<boolean> {
  const changed = await db
    .updateTable('verifications')
    .set({ status: 'expired', updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .returning('id')
    .executeTakeFirst();
  return changed !== undefined;
}

/**
 * The sweeper's bulk expiry. Idempotent, so several processes may run it at once; each row comes back to the
 * one process whose statement changed it.
 */
export function expireAllDue(
  db: Db,
  now: number,
): Promise<{ id: string; workspace_id: string; expires_at: number }[]> {
  return db
    .updateTable('verifications')
    .set({ status: 'expired', updated_at: now })
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .returning(['id', 'workspace_id', 'expires_at'])
    .execute();
}

/**
 * Spends one attempt and applies its outcome in a single statement, so concurrent checks are totally ordered:
 * attempts never exceed max_attempts, nothing is accepted once the budget is spent or the code expired, and
 * the last wrong attempt fails the verification. Undefined when the verification no longer takes a code.
 */
export function spendAttempt(
  db: Db,
  id: string,
  now: number,
  correct: boolean,
): Promise<VerificationRow | undefined> {
  return db
    .updateTable('verifications')
    .set({
      attempts: sql<number>`attempts + 1`,
      status: correct
        ? 'verified'
        : sql<Status>`CASE WHEN attempts + 1 >= max_attempts THEN 'failed' ELSE 'pending' END`,
      verified_at: correct ? now : null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .whereRef('attempts', '<', 'max_attempts')
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Cancels a pending, unexpired verification; finished ones are left as they are (idempotent). True if it did. */
export async function cancelPending(db: Db, id: string, now: number): Promise<boolean> {
  const changed = await db
    .updateTable('verifications')
    .set({ status: 'canceled', updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return changed !== undefined;
}
