// The failed-guess ceiling per destination number. NIST SP 800-63B (5.2.2) limits the failed attempts on one
// subject, and a new code must not start the count again: with only each code's attempt budget, every send brought
// a fresh one, and one number could take hundreds of guesses an hour. So the failed checks of each number in a
// workspace are kept (guess_failures, a row each), and once the number has had `guess_limit` of them within the last
// `guess_window_seconds`, every check of it (with the right code too) and every send to it is refused, 429 with
// Retry-After, until the oldest of those failures leaves the window.
//
// The window slides: no span of its length ever holds more than the limit. (A fixed window lets twice the limit
// through across its boundary; so does one that starts at the first failure, across two of them.)
//
// A check is judged against the ceiling before its attempt is spent (verification/attempt-record.ts), and its
// failure is counted in the transaction that spends the attempt, so the two commit together. A refusal spends
// nothing and depends on nothing but the number's past failures: it says nothing of the code (compared in constant
// time whatever the ceiling says), not even by how long it took. Judging is serialised per number, so the count a
// check reads is the count when it is judged: on SQLite every write transaction of every process runs under the
// database's one write lock; on PostgreSQL the check first takes the number's advisory lock, held to its commit
// (a lock in memory: no row to write or to prune), and only then, in its next statement, reads the count.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import { sortedBy } from '../store/plan-order.js';
import { prepared, preparedInsert } from '../store/prepared.js';

/** A workspace's setting, as the request's key lookup read it. */
export interface GuessPolicy {
  id: string;
  guess_limit: number;
  guess_window_seconds: number;
}

/** What finds the failure that keeps a number's ceiling reached. */
export type CeilingInputs = {
  workspaceId: string;
  phone: string;
  /** The window's start: failures after it count. */
  since: number;
  /** The limit less one: the limit-th newest failure is the one that keeps the ceiling reached. */
  offset: number;
};

/** The inputs of the number's ceiling under `policy` at `now`. */
export function ceilingInputs(policy: GuessPolicy, phone: string, now: number): CeilingInputs {
  return {
    workspaceId: policy.id,
    phone,
    since: now - policy.guess_window_seconds * 1000,
    offset: policy.guess_limit - 1,
  };
}

/**
 * The failure that keeps the ceiling reached: the number's limit-th newest inside the window (one index range).
 * A query of its own, or a scalar inside another statement (the send reads it with the number's other state).
 */
export function ceilingFailureQuery(db: Db, p: CeilingInputs) {
  return db
    .selectFrom('guess_failures')
    .select('at')
    .where('workspace_id', '=', p.workspaceId)
    .where('phone', '=', p.phone)
    .where('at', '>', p.since)
    .orderBy(sortedBy(db, 'at'), 'desc')
    .limit(1)
    .offset(p.offset);
}

const ceilingFailure = prepared((db, p: CeilingInputs) => ceilingFailureQuery(db, p));

const insertFailure = preparedInsert('guess_failures');

/** The number's advisory lock key: 64 bits of a hash (two numbers that share one merely wait for each other). */
export function numberLockKey(workspaceId: string, phone: string): string {
  return createHash('sha256').update(`${workspaceId}\n${phone}`).digest().readBigInt64BE(0).toString();
}

function span(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'an hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'a minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/**
 * The refusal (429, with Retry-After until its oldest counted failure leaves the window) while the number's ceiling
 * is reached, else undefined. One indexed look-up: checks of a finished verification use it alone.
 */
export async function guessCeilingRefusal(
  db: Db,
  policy: GuessPolicy,
  phone: string,
  now: number,
): Promise<AppError | undefined> {
  const [oldest] = (await ceilingFailure(db, ceilingInputs(policy, phone, now))).rows;
  return oldest && ceilingRefusal(policy, oldest.at, now);
}

/** The 429 of a number whose ceiling the failure at `oldestAt` keeps reached (until it leaves the window). */
export function ceilingRefusal(policy: GuessPolicy, oldestAt: number, now: number): AppError {
  const windowMs = policy.guess_window_seconds * 1000;
  return new AppError(
    'rate_limited',
    `Too many wrong codes for this number: at most ${policy.guess_limit} failed checks in ${span(policy.guess_window_seconds)}. Checks of and sends to it are refused until then.`,
    { retry_after: Math.max(1, Math.ceil((oldestAt + windowMs - now) / 1000)) },
  );
}

/** Refuses (429) while the number's ceiling is reached (guessCeilingRefusal). */
export async function enforceGuessCeiling(
  db: Db,
  policy: GuessPolicy,
  phone: string,
  now: number,
): Promise<void> {
  const refusal = await guessCeilingRefusal(db, policy, phone, now);
  if (refusal) throw refusal;
}

/** The failure that keeps the number's ceiling reached, or null (one indexed look-up). */
export async function ceilingAt(db: Db, p: CeilingInputs): Promise<number | null> {
  const [oldest] = (await ceilingFailure(db, p)).rows;
  return oldest ? oldest.at : null;
}

/** A wrong code judged (its attempt spent), in the transaction that held the ceiling: one failure more. */
export async function countGuessFailure(
  tx: Db,
  workspaceId: string,
  phone: string,
  now: number,
): Promise<void> {
  await insertFailure(tx, { workspace_id: workspaceId, phone, at: now });
}
