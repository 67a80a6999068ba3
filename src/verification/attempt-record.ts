// A check's judged attempt and what it leaves, in the check's transaction: the attempt spent (the verification
// verified, or failed by its last wrong attempt), the number's failed guess when the code was wrong and counts
// against the ceiling, and the attempt's timeline events. SQLite: three statements (each a call into the same
// process). PostgreSQL: one statement of data-modifying CTEs, one round trip where there were three.
import { CompiledQuery } from 'kysely';
import { countGuessFailure } from '../limits/guess-ceiling.js';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/prepared.js';
import type { Timeline } from '../timeline/timeline.js';
import * as repo from './repository.js';
import { attemptEvents } from './timeline-events.js';

/**
 * The attempt's guards are spendAttempt's (repository.ts): a pending code, with budget left, not yet expired.
 * The outcome is written with the attempt; a wrong attempt that spends the last of the budget fails the
 * verification in the same update (on PostgreSQL an unchanged status keeps its indexes as they are). The events
 * are attemptEvents' (timeline-events.ts) in SQL: the attempt (or its verification), then the failure when it was
 * the last; their details as the same JSON object.
 */
function attemptSql(outcome: string): string {
  return `
with spent as (
  update verifications set attempts = attempts + 1, ${outcome}, updated_at = $2::bigint
  where id = $1::text and status = 'pending' and attempts < max_attempts and expires_at > $2::bigint
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
select status, attempts, verified_at, updated_at from spent`;
}
const RIGHT = attemptSql(`status = 'verified', verified_at = $2::bigint`);
const WRONG = attemptSql(`status = case when attempts + 1 >= max_attempts then 'failed' else status end`);

type Spent = Pick<repo.VerificationRow, 'status' | 'attempts' | 'verified_at' | 'updated_at'>;

/**
 * Spends one attempt of `row` with its outcome and records it; `countFailure`: a wrong code counts against the
 * number's failed-guess ceiling. Undefined when the verification no longer takes a code; else `row` with what the
 * attempt changed.
 */
export async function recordAttempt(
  tx: Db,
  timeline: Timeline,
  p: { row: repo.VerificationRow; now: number; correct: boolean; countFailure: boolean },
): Promise<repo.VerificationRow | undefined> {
  const { row, now, correct, countFailure } = p;
  if (dialectOf(tx) === 'postgres') {
    const [first, second] = timeline.reserve(2);
    const { rows } = await tx.executeQuery<Spent>(
      CompiledQuery.raw(correct ? RIGHT : WRONG, [
        row.id,
        now,
        countFailure,
        first?.id,
        first?.seq,
        second?.id,
        second?.seq,
      ]),
    );
    const [spent] = rows;
    return spent && { ...row, ...spent };
  }
  const spent = await repo.spendAttempt(tx, row, now, correct);
  if (!spent) return undefined;
  if (countFailure) await countGuessFailure(tx, row.workspace_id, row.phone, now);
  await timeline.record(tx, attemptEvents(spent));
  return spent;
}
