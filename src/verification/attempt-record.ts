// A check's judged attempt and what it leaves, in the check's transaction: the number's failed-guess ceiling held
// (limits/guess-ceiling.ts), then the attempt spent (the verification verified, or failed by its last wrong attempt),
// the number's failed guess when the code was wrong and counts against the ceiling, and the attempt's timeline
// events. SQLite: a statement each (each a call into the same process). PostgreSQL: attempt-statement.ts, the
// number's lock and one statement, sent ahead with BEGIN and COMMIT in one round trip; a check with no webhook event
// to commit with its attempt is judged with its turn's others instead (attempt-batch.ts).
import { ceilingAt, countGuessFailure } from '../limits/guess-ceiling.js';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/prepared.js';
import type { Timeline } from '../timeline/timeline.js';
import { type AttemptOutcome, type Judgement, sendAttempts } from './attempt-statement.js';
import * as repo from './repository.js';
import { attemptEvents } from './timeline-events.js';

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
  p: Judgement & { now: number },
): Promise<{ outcome: Promise<AttemptOutcome> }> {
  const { row, now, correct, countFailure, ceiling } = p;
  if (dialectOf(tx) === 'postgres') {
    const { outcomes } = await sendAttempts(tx, [{ row, correct, countFailure, ceiling }], now, timeline);
    return { outcome: outcomes.then(([outcome]) => outcome as AttemptOutcome) };
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
