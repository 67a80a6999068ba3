// The sign-in limit: at most 5 failed sign-ins per e-mail and 30 per client address are judged in a fixed
// 15-minute window, across every process sharing the database.
//
// An attempt takes one unit of both budgets *before* its password is compared, in one transaction of two
// conditional upserts (a budget at its limit is left untouched and refuses), so concurrent attempts can never
// be judged past the limit. A wrong password keeps its units: they are the window's failures. A right one gives
// them back, so successful sign-ins never spend a budget (an office behind one address, a person with several
// browsers), yet cannot wipe out the failures of others either: only the attempt itself is refunded.
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import * as repo from './repository.js';

export const SIGNIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_ADDRESS = 30;

/** The units one attempt holds until it is judged. */
export interface SigninAttempt {
  keys: string[];
  windowStart: number;
}

export function createSigninLimit(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  return {
    /** Takes the attempt's units, or refuses it (429 with Retry-After) when a budget is spent. */
    async take(email: string, address: string): Promise<SigninAttempt> {
      const now = clock.now();
      const windowStart = now - (now % SIGNIN_WINDOW_MS);
      const budgets: [string, number][] = [
        [`email:${email}`, MAX_FAILURES_PER_EMAIL],
        [`address:${address}`, MAX_FAILURES_PER_ADDRESS],
      ];
      // Both units or neither: a refusal by the second budget rolls the first back, so a refused attempt
      // spends nothing. Every attempt takes them in the same order (e-mail, then address): no deadlock.
      await db.transaction().execute(async (tx) => {
        for (const [key, limit] of budgets) {
          if (!(await repo.takeSigninUnit(tx, key, windowStart, limit))) {
            throw new AppError(
              'rate_limited',
              'Too many failed sign-ins. Wait a few minutes and try again.',
              {
                retry_after: Math.ceil((windowStart + SIGNIN_WINDOW_MS - now) / 1000),
              },
            );
          }
        }
      });
      return { keys: budgets.map(([key]) => key), windowStart };
    },

    /** A right password: the attempt's units go back (its window's, even if a new window began meanwhile). */
    async giveBack(attempt: SigninAttempt): Promise<void> {
      await repo.giveBackSigninUnits(db, attempt.keys, attempt.windowStart);
    },

    /** Deletes the counts of windows that have ended (the sweeper's retention step). */
    async pruneEnded(): Promise<number> {
      const now = clock.now();
      return repo.deleteSigninWindowsBefore(db, now - (now % SIGNIN_WINDOW_MS));
    },
  };
}

export type SigninLimit = ReturnType<typeof createSigninLimit>;
