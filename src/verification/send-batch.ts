// PostgreSQL: the sends of one turn in one transaction (store/turn-batch.ts). Alone, a send is a transaction of its
// own and three round trips (send-transaction.ts `sendAlone`): its locks and reads, the pumping guard's count, then
// the supersede, the inserts and COMMIT; each with BEGIN, COMMIT and the log's flush, and each round trip a wake-up of
// both processes. Here a batch takes the same steps, each for all its sends in one round trip: three round trips and
// one commit for the lot.
//
// The guarantees are a send's alone. Every lock is taken before any read that depends on it: the batch's numbers
// first, in one order (sorted), then its ranges, in one order, so two batches (or a batch and a send alone, which
// takes its number, then its range) always wait in the same direction and never deadlock. Each statement reads a
// snapshot taken when it starts, after the locks, and sees what the batch's statements before it wrote: the guard's
// counts run one after another, so a range's second send counts its first. A send the batch would refuse, or whose
// number is already in the batch, is judged alone after the batch commits, by `sendAlone` (its refusal, its block
// and its log row are written there, as ever): the batch leaves nothing of it but its locks' touch. So the batch's
// sends and those after it are judged as if they had come in that order, which requests of one turn may.
//
// Only where nothing else must commit with the send (no webhook event: the workspace has no endpoints), and never
// on SQLite, where a statement is a call into this process and there is no round trip to share. A batch fails whole,
// and each of its sends gets the failure.
import type { RangeState } from '../fraud/repository.js';
import { rangeOf } from '../fraud/rules.js';
import type { Db } from '../store/database.js';
import { inKeyOrder } from '../store/lock-order.js';
import { turnBatched } from '../store/turn-batch.js';
import type { NumberState } from './number-state.js';
import { numberOf } from './repository.js';
import type { SendDeps, SendOutcome, SendPlan, SendSteps } from './send-transaction.js';

/** A send of the batch's: its outcome, or `alone` (judged alone after the batch). */
type BatchedSend = SendOutcome | 'alone';

const numberKey = ({ row }: SendPlan) => numberOf(row);
const rangeKey = ({ row }: SendPlan) => `${row.workspace_id}\n${rangeOf(row.phone)}`;

/**
 * One batch under way at a time, per process: a batch holds its numbers' and ranges' locks over its three round trips,
 * so a second one at once would wait on the first wherever they share a range, and the sends that arrive meanwhile
 * go together in the next, one commit for more of them. Measured against two at a time: a quarter to a third less of
 * the database's CPU a send, at about the same throughput (docs/benchmarks.md).
 */
const ONE_AT_A_TIME = { inFlight: 1 };

/** The batch of one service: its steps are the send's own (send-transaction.ts). */
export function createSendBatch(steps: SendSteps, deps: Pick<SendDeps, 'fraud'>) {
  return turnBatched<SendPlan, BatchedSend>(async (db: Db, batch) => {
    // A number once a batch: its second send must read what its first wrote.
    const numbers = new Set<string>();
    const taken = batch.filter((plan) => {
      const number = numberKey(plan);
      if (numbers.has(number)) return false;
      numbers.add(number);
      return true;
    });
    const outcomes = new Map<SendPlan, SendOutcome>();
    await db.transaction().execute(async (tx) => {
      // The first round trip: the numbers' locks, the ranges', and the numbers' states after them all.
      const readNumbers = new Map<SendPlan, () => Promise<NumberState>>();
      for (const plan of inKeyOrder(taken, numberKey))
        readNumbers.set(plan, await steps.lockNumber(tx, plan));
      const readRanges = new Map<SendPlan, () => Promise<RangeState>>();
      for (const plan of inKeyOrder(taken, rangeKey)) {
        const read = steps.lockRange(tx, plan);
        if (read) readRanges.set(plan, await read);
      }
      const states = await Promise.all(taken.map((plan) => readNumbers.get(plan)?.()));
      // The second: the guard of each send no limit refuses, in the batch's order.
      const guarded: { plan: SendPlan; seq: number; passed: () => Promise<boolean> }[] = [];
      for (const [i, plan] of taken.entries()) {
        const number = states[i];
        if (!number || number.windowFullAt !== null || (plan.live && number.ceilingAt !== null)) continue;
        const readRange = readRanges.get(plan);
        const now = plan.row.created_at;
        const passed = readRange
          ? await deps.fraud.passAhead(tx, plan.ws.id, plan.row.phone, await readRange(), now)
          : async () => true;
        guarded.push({ plan, seq: number.seq, passed });
      }
      const passes = await Promise.all(guarded.map((g) => g.passed()));
      // The third, with COMMIT: the writes of every send that passed.
      for (const [i, { plan, seq }] of guarded.entries()) {
        if (passes[i]) outcomes.set(plan, { handedOver: await steps.writeSend(tx, plan, seq) });
      }
    });
    return batch.map((plan) => outcomes.get(plan) ?? 'alone');
  }, ONE_AT_A_TIME);
}
