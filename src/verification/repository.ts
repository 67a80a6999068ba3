// SQL for verifications. Every race-prone step is one statement (or runs inside the caller's transaction),
// and each says which invariant it keeps. Functions take the database (or a transaction) first.
import { type QueryCreator, sql } from 'kysely';
import type { Db } from '../store/database.js';
import { withLockedBatch } from '../store/locked-batch.js';
import { stillPending } from '../store/plan-order.js';
import { dialectOf, prepared, preparedInsert } from '../store/prepared.js';
import type { Database, VerificationsTable } from '../store/tables.js';
import { batchesInTurn, readByKey } from '../store/turn-batch.js';
import type { Mode } from '../vocabulary/modes.js';
import type { Status } from '../vocabulary/statuses.js';

export type VerificationRow = VerificationsTable;

/** A workspace's number as one key: a batch judges each number once a round (attempt-batch.ts, send-batch.ts). */
export const numberOf = (row: Pick<VerificationRow, 'workspace_id' | 'phone'>): string =>
  `${row.workspace_id}\n${row.phone}`;

export const insertVerification = preparedInsert('verifications');

// Every read by an API key names the key's mode: a verification of the other mode is not found, exactly like an
// unknown id (test-mode and live verifications never meet).
const byId = prepared((db, p: { workspaceId: string; id: string; mode: Mode }) =>
  db
    .selectFrom('verifications')
    .selectAll()
    .where('id', '=', p.id)
    .where('workspace_id', '=', p.workspaceId)
    .where('mode', '=', p.mode),
);

/**
 * PostgreSQL: the verifications of a turn's reads by id (a check's, a get's, a cancel's), in one statement where
 * each was a statement and a round trip of its own (store/turn-batch.ts). Each costs the serving process its
 * message, its answer and their parsing; SQLite has no round trip to share, and keeps a statement a read.
 */
const byIds = prepared((db, p: { keys: string[] }) =>
  db.selectFrom('verifications').selectAll().where(sql<boolean>`id = any(${p.keys}::text[])`),
);
const readInTurn = readByKey(byIds, (row) => row.id);

export async function findVerification(
  db: Db,
  workspaceId: string,
  id: string,
  mode: Mode,
): Promise<VerificationRow | undefined> {
  if (!batchesInTurn(db)) return (await byId(db, { workspaceId, id, mode })).rows[0];
  // The turn's statement looks its ids up by the primary key alone: the workspace and the mode are checked here, on
  // the row, as `byId` checks them in SQL.
  const [row] = await readInTurn(db, id);
  return row?.workspace_id === workspaceId && row.mode === mode ? row : undefined;
}

/** The dashboard's read (it shows either mode, and says which): no mode in the condition. */
const byIdEitherMode = prepared((db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('verifications').selectAll().where('id', '=', p.id).where('workspace_id', '=', p.workspaceId),
);

export async function findVerificationEitherMode(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<VerificationRow | undefined> {
  return (await byIdEitherMode(db, { workspaceId, id })).rows[0];
}

/**
 * The id of the workspace's verification whose id begins `ver_` + `prefix` (21 characters: what a Twilio VE SID
 * stands for, src/twilio-api/sids.ts).
 * - SQLite compares text by its bytes, so those ids are one range of the key: after `ver_` + `prefix`, and before it
 *   with `{` added (ids are base-62, every character below `{`). Migration 0021 dropped the index of 0015 there.
 * - PostgreSQL orders text by the database's collation, in which such a range need not hold them all, so it keeps
 *   the expression index of migration 0015: the same expression here.
 */
export function idPrefixQuery(db: Db, p: { workspaceId: string; prefix: string; mode: Mode }) {
  const found = db
    .selectFrom('verifications')
    .select('id')
    .where(sql<string>`substr(id, 5, 21)`, '=', p.prefix);
  if (dialectOf(db) === 'postgres')
    return found.where('workspace_id', '=', p.workspaceId).where('mode', '=', p.mode).limit(1);
  // The workspace and the mode written `+column`, which SQLite takes as no column of any index: the key's range is
  // then the only index left, where the workspace's index (its every verification) looked as good on small tables.
  return found
    .where('id', '>', sql<string>`'ver_' || ${p.prefix}`)
    .where('id', '<', sql<string>`'ver_' || ${p.prefix} || '{'`)
    .where(sql<string>`+workspace_id`, '=', p.workspaceId)
    .where(sql<string>`+mode`, '=', p.mode)
    .limit(1);
}
const byIdPrefix = prepared(idPrefixQuery);

export async function findIdByPrefix(
  db: Db,
  workspaceId: string,
  prefix: string,
  mode: Mode,
): Promise<string | undefined> {
  return (await byIdPrefix(db, { workspaceId, prefix, mode })).rows[0]?.id;
}

/** The number's pending verification where there is one, else its newest. */
const byPhone = prepared((db, p: { workspaceId: string; phone: string; mode: Mode }) =>
  db
    .selectFrom('verifications')
    .selectAll()
    .where('workspace_id', '=', p.workspaceId)
    .where('phone', '=', p.phone)
    .where('mode', '=', p.mode)
    .orderBy(sql`CASE WHEN status = 'pending' THEN 0 ELSE 1 END`)
    .orderBy('seq', 'desc')
    .limit(1),
);

export async function findForPhone(
  db: Db,
  workspaceId: string,
  phone: string,
  mode: Mode,
): Promise<VerificationRow | undefined> {
  return (await byPhone(db, { workspaceId, phone, mode })).rows[0];
}

export interface SupersededRow {
  id: string;
  /** canceled, or expired where its time had already run out. */
  status: string;
  expires_at: number;
}

/** What a supersede names: the number, in the workspace, in the send's mode (one pending code per mode). */
type SupersedeInputs = {
  workspaceId: string;
  phone: string;
  now: number;
  mode: Mode;
};

/**
 * Supersede: the number's pending code of the send's mode dies (or is recorded expired, if its time had already
 * run out); a test send never touches a live code, nor the reverse. Returns the rows it changed, so each gets its
 * timeline event.
 */
export async function supersedePending(db: Db, p: SupersedeInputs): Promise<SupersededRow[]> {
  return (await supersede(db, p)).rows;
}

export function supersedeWhere(db: QueryCreator<Database>, p: SupersedeInputs) {
  return (
    db
      .updateTable('verifications')
      .set({
        status: sql<Status>`CASE WHEN expires_at <= ${p.now} THEN 'expired' ELSE 'canceled' END`,
        updated_at: p.now,
      })
      .where('workspace_id', '=', p.workspaceId)
      .where('phone', '=', p.phone)
      .where('mode', '=', p.mode)
      // A literal, not a parameter: the planner then takes the partial index of pending codes (six times faster).
      .where('status', '=', sql.lit<Status>('pending'))
  );
}
const supersede = prepared((db, p: SupersedeInputs) =>
  supersedeWhere(db, p).returning(['id', 'status', 'expires_at']),
);
const supersedeRows = prepared((db, p: SupersedeInputs) => supersedeWhere(db, p).returningAll());

/**
 * PostgreSQL: supersedePending and the timeline's events of the rows it changed in one statement (what
 * timeline-events.ts `supersedeEvents` makes of each row, in SQL: the same kinds and the same JSON), for a send whose
 * rows nobody reads back (no webhook events). The first event takes the id and place reserved for it; a second row
 * (which the number's lock rules out) would take the first's with a suffix.
 */
export const supersedeWithEvents = prepared(
  (db, p: SupersedeInputs & { newerId: string; eventId: string; seq: number }) => {
    const newer = sql<string>`to_json(cast(${p.newerId} as text))::text`;
    return db
      .with('superseded', (qc) => supersedeWhere(qc, p).returning(['id', 'status', 'expires_at']))
      .with('numbered', (qc) =>
        qc
          .selectFrom('superseded')
          .select(['id', 'status', 'expires_at', sql<number>`row_number() over (order by id)`.as('n')]),
      )
      .insertInto('verification_events')
      .columns(['id', 'verification_id', 'workspace_id', 'kind', 'detail', 'at', 'seq'])
      .expression((eb) =>
        eb.selectFrom('numbered').select([
          sql<string>`cast(${p.eventId} as text) || case when n > 1 then '_' || n else '' end`.as('id'),
          'numbered.id as verification_id',
          sql<string>`cast(${p.workspaceId} as text)`.as('workspace_id'),
          sql<string>`case when status = 'expired' then 'expired' else 'superseded' end`.as('kind'),
          sql<string>`case when status = 'expired'
              then '{"expires_at":' || expires_at || ',"superseded_by":' || ${newer} || '}'
              else '{"by":' || ${newer} || '}' end`.as('detail'),
          sql<number>`cast(${p.now} as bigint)`.as('at'),
          sql<number>`cast(${p.seq} as bigint) + n - 1`.as('seq'),
        ]),
      );
  },
);

/** supersedePending returning the whole rows, for a workspace whose changes emit webhook events. */
export async function supersedePendingRows(db: Db, p: SupersedeInputs): Promise<VerificationRow[]> {
  return (await supersedeRows(db, p)).rows;
}

/**
 * Persists expiry of one verification if it is due; a no-op otherwise. True only for the caller whose
 * statement changed the row: of several racing readers exactly one records the expiry.
 */
export async function expireIfDue(db: Db, id: string, now: number): Promise<boolean> {
  return (await expireOne(db, { id, now })).rows.length > 0;
}

const expireWhere = (db: Db, p: { id: string; now: number }) =>
  db
    .updateTable('verifications')
    .set({ status: 'expired', updated_at: p.now })
    .where('id', '=', p.id)
    .where(stillPending)
    .where('expires_at', '<=', p.now);
const expireOne = prepared((db, p: { id: string; now: number }) => expireWhere(db, p).returning('id'));
const expireOneRow = prepared((db, p: { id: string; now: number }) => expireWhere(db, p).returningAll());

/** expireIfDue returning the expired row (undefined: not this caller's change), for emitting its event. */
export async function expireRowIfDue(db: Db, id: string, now: number): Promise<VerificationRow | undefined> {
  return (await expireOneRow(db, { id, now })).rows[0];
}

/**
 * Due codes one statement of the sweeper's expiry changes at most. A burst of unchecked sends comes due together
 * (20,000 codes were one 440 ms statement on SQLite, during which every request waited): in batches of this size
 * each statement takes a few milliseconds, and requests run between them.
 */
export const EXPIRY_BATCH = 200;

/**
 * The sweeper's expiry: up to `limit` due codes, oldest expiry first. Idempotent, so several processes may run it
 * at once; each row comes back to the one process whose statement changed it (the outer test of the status is
 * evaluated again on the row as it is when changed). On PostgreSQL the batch skips the rows another process or a
 * check holds, so concurrent sweepers take different batches; a skipped row is due at the next sweep
 * (store/locked-batch.ts).
 */
export const expireDueBatch = prepared((db, p: { now: number; limit: number }) => {
  const due = db
    .selectFrom('verifications')
    .select('id')
    .where('status', '=', sql.lit('pending'))
    .where('expires_at', '<=', p.now)
    .orderBy('expires_at')
    .limit(p.limit);
  return withLockedBatch(db, due)
    .updateTable('verifications')
    .set({ status: 'expired', updated_at: p.now })
    .where('id', 'in', (eb) => eb.selectFrom('batch').select('id'))
    .where(stillPending)
    .where('expires_at', '<=', p.now)
    .returningAll();
});

/**
 * Spends one attempt and applies its outcome in a single statement, so concurrent checks are totally ordered:
 * attempts never exceed max_attempts, nothing is accepted once the budget is spent or the code expired. A wrong
 * attempt that spends the last of the budget also fails the verification, in a second statement of the caller's
 * transaction (nobody can spend in between: the budget is gone, and the transaction holds the row). Undefined
 * when the verification no longer takes a code. Returns `row` (the verification as the caller read it) with
 * what the attempt changed.
 */
export async function spendAttempt(
  db: Db,
  row: VerificationRow,
  now: number,
  correct: boolean,
): Promise<VerificationRow | undefined> {
  const [spent] = (await (correct ? spendRight : spendWrong)(db, { id: row.id, now })).rows;
  if (!spent) return undefined;
  const after = { ...row, ...spent };
  if (correct || after.attempts < after.max_attempts) return after;
  await failSpent(db, { id: row.id, now });
  return { ...after, status: 'failed' };
}

/** The attempt's guards: a pending code, with budget left, not yet expired. */
function spend(outcome: (p: { now: number }) => { status?: Status; verified_at?: number }) {
  return prepared((db, p: { id: string; now: number }) =>
    db
      .updateTable('verifications')
      .set({ attempts: sql<number>`attempts + 1`, ...outcome(p), updated_at: p.now })
      .where('id', '=', p.id)
      .where(stillPending)
      .whereRef('attempts', '<', 'max_attempts')
      .where('expires_at', '>', p.now)
      // What an attempt changes; the caller holds the rest.
      .returning(['status', 'attempts', 'verified_at', 'updated_at']),
  );
}
const spendRight = spend((p) => ({ status: 'verified', verified_at: p.now }));
// A wrong guess leaves the status alone: not even rewritten, since every index holding it would be written.
const spendWrong = spend(() => ({}));

/** The last wrong attempt fails the verification. */
const failSpent = prepared((db, p: { id: string; now: number }) =>
  db
    .updateTable('verifications')
    .set({ status: 'failed', updated_at: p.now })
    .where('id', '=', p.id)
    .where(stillPending),
);

/** Cancels a pending, unexpired verification; finished ones are left as they are (idempotent). True if it did. */
export async function cancelPending(db: Db, id: string, now: number): Promise<boolean> {
  return (await cancelOne(db, { id, now })).rows.length > 0;
}

const cancelWhere = (db: Db, p: { id: string; now: number }) =>
  db
    .updateTable('verifications')
    .set({ status: 'canceled', updated_at: p.now })
    .where('id', '=', p.id)
    .where(stillPending)
    .where('expires_at', '>', p.now);
const cancelOne = prepared((db, p: { id: string; now: number }) => cancelWhere(db, p).returning('id'));
const cancelOneRow = prepared((db, p: { id: string; now: number }) => cancelWhere(db, p).returningAll());

/** cancelPending returning the canceled row, for emitting its event. */
export async function cancelPendingRow(
  db: Db,
  id: string,
  now: number,
): Promise<VerificationRow | undefined> {
  return (await cancelOneRow(db, { id, now })).rows[0];
}
