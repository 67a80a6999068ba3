// PostgreSQL: the checks of one turn judged together (store/turn-batch.ts). Alone, a check's judgement is a
// transaction of its own (attempt-record.ts): BEGIN, the number's advisory lock, the attempt's statement and COMMIT,
// four messages the database server answers one by one, and each statement's fixed cost in both processes. Here
// one transaction judges a batch with the same two statements (attempt-statement.ts), each for all its checks.
//
// The guarantees are a check's alone, row for row: each number's ceiling is read after its lock; an attempt is
// spent only from a pending code with budget left, not yet expired, and never past the ceiling; a wrong code's
// failure and the attempt's events commit with it. One statement reads one snapshot, so two checks of one number
// never share a batch's statement: the second goes in the batch's next round (a transaction after the first), where
// it reads what the first wrote. A round fails whole, and each check of its batch gets the failure.
//
// Only where nothing else must commit with the attempt (no webhook event: the workspace has no endpoints), and
// never on SQLite, where a statement is a call into this process and there is no round trip to share.
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { turnBatched } from '../store/turn-batch.js';
import type { Timeline } from '../timeline/timeline.js';
import { type AttemptInput, type AttemptOutcome, judgementAt, sendAttempts } from './attempt-statement.js';
import { numberOf } from './repository.js';

/** What the check came to, and the time it was judged at. */
export interface BatchedOutcome extends AttemptOutcome {
  now: number;
}

/** The inputs in rounds: no number twice in one round (its second check must read what its first wrote). */
function rounds(batch: readonly AttemptInput[]): AttemptInput[][] {
  const out: { numbers: Set<string>; inputs: AttemptInput[] }[] = [];
  for (const input of batch) {
    const number = numberOf(input.row);
    let round = out.find((r) => !r.numbers.has(number));
    if (!round) {
      round = { numbers: new Set(), inputs: [] };
      out.push(round);
    }
    round.numbers.add(number);
    round.inputs.push(input);
  }
  return out.map((r) => r.inputs);
}

/** One round in one transaction: BEGIN, the locks, the attempts and COMMIT, sent together. */
async function judgeRound(
  db: Db,
  round: readonly AttemptInput[],
  now: number,
  timeline: Timeline,
): Promise<AttemptOutcome[]> {
  const judgements = round.map((input) => judgementAt(input, now));
  const { outcomes } = await db.transaction().execute((tx) => sendAttempts(tx, judgements, now, timeline));
  return outcomes;
}

/** The batch of one service (its clock reads each round's time; its timeline names the events). */
export function createAttemptBatch(deps: { clock: Clock; timeline: Timeline }) {
  return turnBatched<AttemptInput, BatchedOutcome>(async (db, batch) => {
    const outcomes = new Map<AttemptInput, BatchedOutcome>();
    for (const round of rounds(batch)) {
      // Read once the round runs: no code is accepted at or after expires_at, however long it waited.
      const now = deps.clock.now();
      const judged = await judgeRound(db, round, now, deps.timeline);
      for (const [i, input] of round.entries()) {
        outcomes.set(input, { now, ...(judged[i] as AttemptOutcome) });
      }
    }
    return batch.map((input) => outcomes.get(input) as BatchedOutcome);
  });
}
