// SQL for the delivery state of a verification (provider, hand-over outcome, failures reported later): what
// delivery writes on a verification's row. Functions take the database (or a transaction) first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { stillPending } from '../store/plan-order.js';
import { prepared } from '../store/prepared.js';
import type { VerificationsTable } from '../store/tables.js';
import type { Status } from '../vocabulary/statuses.js';

type VerificationRow = VerificationsTable;

/** The verification a delivery job is for, within its workspace. */
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

/** The verification a carrier's status callback names, within the workspace that owns the carrier account. */
export function findByProviderId(
  db: Db,
  workspaceId: string,
  providerId: string,
): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export interface DeliveryOutcome {
  provider: string;
  ok: boolean;
  providerId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** The number it was sent from (a fail-over may use another than the send chose). */
  from: string;
}

/** The columns of a verification that change after its send; the rest are fixed when it is created. */
const CHANGING = [
  'status',
  'attempts',
  'verified_at',
  'updated_at',
  'delivery_ok',
  'delivery_provider',
  'provider_id',
  'from_number',
  'error_code',
  'error_message',
] as const;
export type ChangingColumns = Pick<VerificationRow, (typeof CHANGING)[number]>;

/**
 * Records the settled hand-over; a rejected one makes a still-pending verification undelivered. Returns the
 * columns that change after a send, as they now are (undefined if the verification no longer exists), so a
 * caller holding the row has it as it now is without reading it again.
 */
export async function recordHandOver(
  db: Db,
  id: string,
  outcome: DeliveryOutcome,
  now: number,
): Promise<ChangingColumns | undefined> {
  const record = outcome.ok ? recordAccepted : recordRejected;
  const { rows } = await record(db, {
    id,
    now,
    provider: outcome.provider,
    providerId: outcome.providerId,
    from: outcome.from,
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage,
  });
  return rows[0];
}

type HandOverInputs = {
  id: string;
  now: number;
  provider: string;
  providerId: string | null;
  from: string;
  errorCode: string | null;
  errorMessage: string | null;
};

function handOverStatement(ok: boolean) {
  return prepared((db, p: HandOverInputs) =>
    db
      .updateTable('verifications')
      .set({
        delivery_provider: p.provider,
        delivery_ok: ok ? 1 : 0,
        provider_id: p.providerId,
        from_number: p.from,
        error_code: p.errorCode,
        error_message: p.errorMessage,
        // A hand-over leaves the status alone (not even rewritten: every index holding it would be written).
        ...(ok
          ? {}
          : { status: sql<Status>`CASE WHEN status = 'pending' THEN 'undelivered' ELSE status END` }),
        updated_at: p.now,
      })
      .where('id', '=', p.id)
      .returning(CHANGING),
  );
}
const recordAccepted = handOverStatement(true);
const recordRejected = handOverStatement(false);

/**
 * A hand-over that failed transiently and will be tried again: not handed over yet (delivery_ok stays unset),
 * no failure code (nothing has definitively failed), and the words say what happened and what comes next.
 */
export async function recordRetryPending(
  db: Db,
  id: string,
  progress: { provider: string; from: string; message: string },
  now: number,
): Promise<void> {
  await db
    .updateTable('verifications')
    .set({
      delivery_provider: progress.provider,
      from_number: progress.from,
      error_code: null,
      error_message: progress.message,
      updated_at: now,
    })
    .where('id', '=', id)
    .where(stillPending)
    .execute();
}

/**
 * A delivery failure reported after hand-over: kept for diagnostics; a pending verification becomes undelivered.
 * Returns the verification's workspace and status after the report; undefined when it no longer exists or
 * already carries this very failure (a repeated report: of copies racing, exactly one changes the row).
 */
export function recordDeliveryFailure(
  db: Db,
  id: string,
  failure: { errorCode: string; errorMessage: string },
  now: number,
): Promise<VerificationRow | undefined> {
  return db
    .updateTable('verifications')
    .set({
      error_code: failure.errorCode,
      error_message: failure.errorMessage,
      status: sql<Status>`CASE WHEN status = 'pending' THEN 'undelivered' ELSE status END`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('error_code', 'is', null),
        eb('error_code', '!=', failure.errorCode),
        eb('error_message', 'is', null),
        eb('error_message', '!=', failure.errorMessage),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** A verification's status (undefined: no such verification), read before a report changes it. */
export async function statusOf(db: Db, id: string): Promise<Status | undefined> {
  const row = await db.selectFrom('verifications').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}
