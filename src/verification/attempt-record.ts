// A check's judged attempt and what it leaves, in the check's transaction: the number's failed-guess ceiling held
// (limits/guess-ceiling.ts), then the attempt spent (the verification verified, or failed by its last wrong attempt),
// the number's failed guess when the code was wrong and counts against the ceiling, and the attempt's timeline
// events. SQLite: a statement each (each a call into the same process). PostgreSQL: the number's advisory lock, then
// one statement of data-modifying CTEs that reads the ceiling and, only when it is not reached, writes the rest; both
// are sent ahead (store/postgres-pipeline.ts), so with BEGIN and COMMIT the whole judgement is one round trip.
import { CompiledQuery } from 'kysely';
import {
  type CeilingInputs,
  ceilingAt,
  countGuessFailure,
  lockNumberAhead,
} from '../limits/guess-ceiling.js';
import type { Db } from '../store/database.js';
import { STILL_PENDING_SQL } from '../store/plan-order.js';
import { sendAhead } from '../store/postgres-pipeline.js';
import { dialectOf } from '../store/prepared.js';
import type { Timeline } from '../timeline/timeline.js';
import * as repo from './repository.js';
import { attemptEvents } from './timeline-events.js';

/**
 * The attempt's guards are spendAttempt's (repository.ts): a pending code, with budget left, not yet expired; and the
 * number's ceiling not reached (`ceiling`: guess-ceiling.ts `ceilingFailureQuery`, read in this statement, after the
 * number's lock, sorted as store/plan-order.ts says; with `$8` false there is no ceiling). The outcome is written with the attempt; a wrong attempt that
 * spends the last of the budget fails the verification in the same update (on PostgreSQL an unchanged status keeps
 * its indexes as they are). The events are attemptEvents' (timeline-events.ts) in SQL: the attempt (or its
 * verification), then the failure when it was the last; their details as the same JSON object. One row always: the
 * attempt's columns (null when nothing was spent) and the failure that keeps the ceiling reached (null when not).
 *
 * The row is found by its id alone, never through the partial index of pending codes (store/plan-order.ts
 * `STILL_PENDING_SQL` says why).
 */
function attemptSql(outcome: string): string {
  return `
with ceiling as (
  select at from guess_failures
  where $8::boolean and workspace_id = $9::text and phone = $10::text and at > $11::bigint
  order by at + 0 desc limit 1 offset $12::bigint
),
spent as (
  update verifications set attempts = attempts + 1, ${outcome}, updated_at = $2::bigint
  where id = $1::text and ${STILL_PENDING_SQL} and attempts < max_attempts and expires_at > $2::bigint
    and not exists (select 1 from ceiling)
  returning workspace_id, phone, status, attempts, max_attempts, verified_at, updated_at
),
failure as (
  insert into guess_failures (workspace_id, phone, at)
  select workspace_id, phone, $2::bigint from spent where $3::boolean
),
events as (
  insert into verification_events (id, verification_id, workspace_id, kind, detail, at, seq)
  select e.id, $1::text, spent.workspace_id,
    case when e.n = 2 then 'failed' when spent.status = 'verified' then 'verified' else 'attempt' end,
    jsonb_build_object('attempt', spent.attempts, 'max_attempts', spent.max_attempts)::text,
    $2::bigint, e.seq
  from spent cross join (values (1, $4::text, $5::bigint), (2, $6::text, $7::bigint)) as e(n, id, seq)
  where e.n = 1 or spent.status = 'failed'
)
select spent.status, spent.attempts, spent.verified_at, spent.updated_at, (select at from ceiling) as ceiling_at
from (select 1) as one left join spent on true`;
}
/** The attempt's statement, for a correct and for a wrong code (exported for its plan's test). */
export const ATTEMPT_SQL = {
  correct: attemptSql(`status = 'verified', verified_at = $2::bigint`),
  wrong: attemptSql(`status = case when attempts + 1 >= max_attempts then 'failed' else status end`),
} as const;

type Spent = Pick<repo.VerificationRow, 'status' | 'attempts' | 'verified_at' | 'updated_at'>;
type Judged = { [K in keyof Spent]: Spent[K] | null } & { ceiling_at: number | string | null };

/** What a judged attempt came to. */
export interface AttemptOutcome {
  /** The failure that keeps the number's ceiling reached: the check is refused and nothing was spent. */
  ceilingAt: number | null;
  /** `row` with what the attempt changed; undefined when nothing was spent. */
  spent: repo.VerificationRow | undefined;
}

/**
 * Judges one attempt of `row` whose code was `correct`: refused, spending nothing, while the number's failed-guess
 * `ceiling` is reached (none: test mode); else spent with its outcome and recorded, and a wrong code counted against
 * the ceiling when `countFailure`. `outcome` is undefined in `spent` when the verification no longer takes a code.
 *
 * Resolves once the statements are written, with `outcome` to come: on PostgreSQL they are sent ahead, so a
 * transaction that returns this object (not `outcome` itself, which would be awaited) commits in the same round trip,
 * and `outcome` settles with the commit.
 */
export async function recordAttempt(
  tx: Db,
  timeline: Timeline,
  p: {
    row: repo.VerificationRow;
    now: number;
    correct: boolean;
    countFailure: boolean;
    ceiling: CeilingInputs | undefined;
  },
): Promise<{ outcome: Promise<AttemptOutcome> }> {
  const { row, now, correct, countFailure, ceiling } = p;
  if (dialectOf(tx) === 'postgres') {
    if (ceiling) await lockNumberAhead(tx, ceiling);
    const [first, second] = timeline.reserve(2);
    const { answer } = await sendAhead<Judged>(
      tx,
      CompiledQuery.raw(correct ? ATTEMPT_SQL.correct : ATTEMPT_SQL.wrong, [
        row.id,
        now,
        countFailure,
        first?.id,
        first?.seq,
        second?.id,
        second?.seq,
        ceiling !== undefined,
        ceiling?.workspaceId ?? '',
        ceiling?.phone ?? '',
        ceiling?.since ?? 0,
        ceiling?.offset ?? 0,
      ]),
    );
    return {
      outcome: answer.then(({ rows: [judged] }) => {
        if (!judged) throw new Error('the attempt statement returned no row');
        const { ceiling_at, ...spent } = judged;
        return {
          ceilingAt: ceiling_at === null ? null : Number(ceiling_at),
          spent: spent.status === null ? undefined : { ...row, ...(spent as Spent) },
        };
      }),
    };
  }
  return { outcome: Promise.resolve(await recordInTurn(tx, timeline, p)) };
}

/** SQLite: the ceiling's look-up, then the attempt and what it leaves, a statement each. */
async function recordInTurn(
  tx: Db,
  timeline: Timeline,
  p: Parameters<typeof recordAttempt>[2],
): Promise<AttemptOutcome> {
  const { row, now, correct, countFailure, ceiling } = p;
  const reached = ceiling ? await ceilingAt(tx, ceiling) : null;
  if (reached !== null) return { ceilingAt: reached, spent: undefined };
  const spent = await repo.spendAttempt(tx, row, now, correct);
  if (!spent) return { ceilingAt: null, spent: undefined };
  if (countFailure) await countGuessFailure(tx, row.workspace_id, row.phone, now);
  await timeline.record(tx, attemptEvents(spent));
  return { ceilingAt: null, spent };
}
