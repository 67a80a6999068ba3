// PostgreSQL: the statements that judge checks' attempts, in a transaction, for one check (attempt-record.ts) or a
// turn's (attempt-batch.ts). First the numbers' advisory locks, held to the commit, in the order of their keys (the
// same order in every process, so two transactions never wait for each other in a circle); then, in a statement of
// its own (so it reads after the locks), one statement of data-modifying CTEs that, for each check, reads its
// number's failed-guess ceiling (limits/guess-ceiling.ts `ceilingFailureQuery`, sorted as store/plan-order.ts says)
// and, only where it is not reached, spends the attempt (the verification verified, or failed by its last wrong
// attempt), counts a wrong code's failure, and writes the attempt's timeline events (timeline-events.ts
// `attemptEvents` in SQL: the attempt or its verification, then the failure when it was the last; their details as
// the same JSON object). Both are sent ahead (store/postgres-pipeline.ts): with BEGIN and COMMIT, one round trip.
//
// One statement reads one snapshot: two checks of one number must not share it (the second must read the first's
// failure). Callers give each number once.
import { CompiledQuery } from 'kysely';
import {
  type CeilingInputs,
  ceilingInputs,
  type GuessPolicy,
  numberLockKey,
} from '../limits/guess-ceiling.js';
import type { Db } from '../store/database.js';
import { byKey } from '../store/lock-order.js';
import { STILL_PENDING_SQL } from '../store/plan-order.js';
import { sendAhead } from '../store/postgres-pipeline.js';
import type { Timeline } from '../timeline/timeline.js';
import type { VerificationRow } from './repository.js';

/** A check to judge, as the request knows it. */
export interface AttemptInput {
  /** The pending verification as the check read it. */
  row: VerificationRow;
  /** Whether the code typed matches (compared before, in constant time). */
  correct: boolean;
  /** The workspace's failed-guess ceiling, live only; a wrong code then counts against it. */
  ceiling: GuessPolicy | undefined;
}

/** One check's attempt to judge at `now`. */
export interface Judgement extends Omit<AttemptInput, 'ceiling'> {
  /** A wrong code counts against the number's ceiling. */
  countFailure: boolean;
  /** The number's failed-guess ceiling; none (test mode): never refused. */
  ceiling: CeilingInputs | undefined;
}

/** `input`'s judgement at `now`: its number's ceiling as of then, and whether a wrong code counts against it. */
export function judgementAt({ row, correct, ceiling }: AttemptInput, now: number): Judgement {
  return {
    row,
    correct,
    countFailure: !correct && ceiling !== undefined,
    ceiling: ceiling && ceilingInputs(ceiling, row.phone, now),
  };
}

/** What a judged attempt came to. */
export interface AttemptOutcome {
  /** The failure that keeps the number's ceiling reached: the check is refused and nothing was spent. */
  ceilingAt: number | null;
  /** `row` with what the attempt changed; undefined when nothing was spent. */
  spent: VerificationRow | undefined;
}

/** The numbers' advisory locks, taken in the order given. */
const LOCK_SQL = 'select pg_advisory_xact_lock(k) from unnest($1::bigint[]) as k';

/**
 * The attempts, one element of each array a check, joined to their inputs by `ord`. The verifications are found by
 * id alone (`id = any($1)`: the primary key, never the partial index of pending codes; store/plan-order.ts
 * `STILL_PENDING_SQL` says why). An attempt is spent only from a pending code with budget left, not yet expired
 * at `$12`, and never past the ceiling (`$8` null: no ceiling). One row a check, in the inputs' order: the
 * attempt's columns (null when nothing was spent) and the failure that keeps the ceiling reached (null when not).
 * Exported for its plan's test.
 */
export const ATTEMPTS_SQL = `
with input as (
  select * from unnest($1::text[], $2::boolean[], $3::boolean[], $4::text[], $5::bigint[], $6::text[], $7::bigint[],
    $8::text[], $9::text[], $10::bigint[], $11::bigint[])
    with ordinality as i(id, correct, count_failure, ev1_id, ev1_seq, ev2_id, ev2_seq, ws, phone, since, skip, ord)
),
ceiling as (
  select input.ord, c.at from input cross join lateral (
    select at from guess_failures
    where input.ws is not null and workspace_id = input.ws and phone = input.phone and at > input.since
    order by at + 0 desc limit 1 offset input.skip
  ) as c
),
spent as (
  update verifications as v set attempts = v.attempts + 1,
    status = case when input.correct then 'verified'
      when v.attempts + 1 >= v.max_attempts then 'failed' else v.status end,
    verified_at = case when input.correct then $12::bigint else v.verified_at end,
    updated_at = $12::bigint
  from input
  where v.id = any($1::text[]) and v.id = input.id and v.${STILL_PENDING_SQL} and v.attempts < v.max_attempts
    and v.expires_at > $12::bigint and not exists (select 1 from ceiling where ceiling.ord = input.ord)
  returning input.ord, input.count_failure, input.ev1_id, input.ev1_seq, input.ev2_id, input.ev2_seq,
    v.id, v.workspace_id, v.phone, v.status, v.attempts, v.max_attempts, v.verified_at, v.updated_at
),
failure as (
  insert into guess_failures (workspace_id, phone, at)
  select workspace_id, phone, $12::bigint from spent where count_failure
),
events as (
  insert into verification_events (id, verification_id, workspace_id, kind, detail, at, seq)
  select e.id, spent.id, spent.workspace_id,
    case when e.n = 2 then 'failed' when spent.status = 'verified' then 'verified' else 'attempt' end,
    jsonb_build_object('attempt', spent.attempts, 'max_attempts', spent.max_attempts)::text,
    $12::bigint, e.seq
  from spent cross join lateral (values (1, spent.ev1_id, spent.ev1_seq), (2, spent.ev2_id, spent.ev2_seq))
    as e(n, id, seq)
  where e.n = 1 or spent.status = 'failed'
)
select spent.status, spent.attempts, spent.verified_at, spent.updated_at, ceiling.at as ceiling_at
from input left join spent on spent.ord = input.ord left join ceiling on ceiling.ord = input.ord
order by input.ord`;

type Spent = Pick<VerificationRow, 'status' | 'attempts' | 'verified_at' | 'updated_at'>;
type Judged = { [K in keyof Spent]: Spent[K] | null } & { ceiling_at: number | null };

/**
 * In PostgreSQL transaction `tx`: the locks of the judgements' numbers and their attempts at `now`, sent ahead
 * (resolves once written). The transaction may then commit in the same round trip; `outcomes` settles with it, one
 * for each judgement, in their order.
 */
export async function sendAttempts(
  tx: Db,
  judgements: readonly Judgement[],
  now: number,
  timeline: Timeline,
): Promise<{ outcomes: Promise<AttemptOutcome[]> }> {
  const keys = judgements
    .flatMap(({ ceiling }) => (ceiling ? [BigInt(numberLockKey(ceiling.workspaceId, ceiling.phone))] : []))
    .sort(byKey)
    .map(String);
  if (keys.length > 0) await sendAhead(tx, CompiledQuery.raw(LOCK_SQL, [keys]));
  const events = judgements.map(() => timeline.reserve(2));
  const column = <T>(of: (j: Judgement, i: number) => T) => judgements.map(of);
  const { answer } = await sendAhead<Judged>(
    tx,
    CompiledQuery.raw(ATTEMPTS_SQL, [
      column((j) => j.row.id),
      column((j) => j.correct),
      column((j) => j.countFailure),
      column((_, i) => events[i]?.[0]?.id),
      column((_, i) => events[i]?.[0]?.seq),
      column((_, i) => events[i]?.[1]?.id),
      column((_, i) => events[i]?.[1]?.seq),
      column((j) => j.ceiling?.workspaceId ?? null),
      column((j) => j.ceiling?.phone ?? null),
      column((j) => j.ceiling?.since ?? 0),
      column((j) => j.ceiling?.offset ?? 0),
      now,
    ]),
  );
  return {
    outcomes: answer.then(({ rows }) => {
      if (rows.length !== judgements.length) {
        throw new Error(`${judgements.length} attempts got ${rows.length} rows`);
      }
      return rows.map(({ ceiling_at, ...spent }, i) => ({
        ceilingAt: ceiling_at,
        spent:
          spent.status === null ? undefined : { ...(judgements[i] as Judgement).row, ...(spent as Spent) },
      }));
    }),
  };
}
