// The sign-in limit: at most 5 failed sign-ins per e-mail and 30 per client address are judged in a fixed
// 15-minute window, across every process sharing the database.
//
// An attempt takes one unit of each budget *before* its password is compared. Taking a unit is one atomic
// statement (an upsert whose increment is conditional: a budget at its limit is left untouched and refuses), so
// concurrent attempts can never be judged past a limit. The e-mail's unit is taken first; an attempt that then
// finds its address spent gives the e-mail's unit back at once, so a refused attempt spends nothing. Until then
// that unit may refuse another attempt for the same e-mail: the limit errs on the side of refusing, never of
// judging more. (One transaction over both would hold the first row's lock across round trips until its
// commit, and a burst on PostgreSQL would queue behind it for whole pool timeouts.)
//
// A wrong password keeps its units: they are the window's failures. A right one gives them back, so successful
// sign-ins never spend a budget (an office behind one address, a person with several browsers), yet cannot wipe
// out the failures of others either: only the attempt itself is refunded.
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
      const keys = [`email:${email}`, `address:${address}`];
      const refused = () =>
        new AppError('rate_limited', 'Too many failed sign-ins. Wait a few minutes and try again.', {
          retry_after: Math.ceil((windowStart + SIGNIN_WINDOW_MS - now) / 1000),
        });
      const [emailKey = '', addressKey = ''] = keys;
      if (!(await repo.takeSigninUnit(db, emailKey, windowStart, MAX_FAILURES_PER_EMAIL))) throw refused();
      if (!(await repo.takeSigninUnit(db, addressKey, windowStart, MAX_FAILURES_PER_ADDRESS))) {
        await repo.giveBackSigninUnits(db, [emailKey], windowStart);
        throw refused();
      }
      return { keys, windowStart };
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
