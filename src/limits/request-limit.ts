// The per-workspace request limit: a fixed one-minute window counted in the database, so it holds across
// every process that shares it. One upsert both counts the requests that arrive together and reads the total,
// atomically (on PostgreSQL it is part of the key lookup's statement: keys/admission-batch.ts). Old windows are
// deleted by retention (store/retention.ts).
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { prepared } from '../store/prepared.js';

const WINDOW_MS = 60_000;

/**
 * Counts `n` requests in their window and reads the window's total, in one statement: the admissions of the
 * requests that arrive together are counted at once (keys/admission-batch.ts), each taking one of the `n` counts
 * below the total in arrival order.
 */
export const countRequests = prepared((db, p: { workspaceId: string; windowStart: number; n: number }) =>
  db
    .insertInto('request_counters')
    .values({ workspace_id: p.workspaceId, window_start: p.windowStart, count: p.n })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'window_start'])
        .doUpdateSet({ count: sql<number>`request_counters.count + ${p.n}` }),
    )
    .returning('count'),
);

/** The name the RateLimit fields give the workspace request limit. */
const POLICY = 'workspace';

export interface RateLimitFields {
  /** RateLimit-Policy */
  policy: string;
  /** RateLimit */
  state: string;
}

export function createRequestLimiter(deps: { clock: Clock }) {
  const { clock } = deps;
  /** Whole seconds until the window of `windowStart` ends, at least 1. */
  const secondsLeft = (windowStart: number) =>
    Math.max(1, Math.ceil((windowStart + WINDOW_MS - clock.now()) / 1000));

  return {
    /** The window a request made now is counted in. */
    window(): number {
      const now = clock.now();
      return now - (now % WINDOW_MS);
    },

    /** Refuses a request whose count in `windowStart` is past the limit (429 until the window ends). */
    judge(count: number, limitPerMinute: number, windowStart: number): void {
      if (count <= limitPerMinute) return;
      throw new AppError('rate_limited', `At most ${limitPerMinute} requests a minute per workspace.`, {
        retry_after: secondsLeft(windowStart),
      });
    },

    /**
     * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10): the workspace's policy (`q` requests
     * in a window of `w` seconds) and what the counted request left of it (`r` remaining, reset in `t` seconds).
     */
    fields(count: number, limitPerMinute: number, windowStart: number): RateLimitFields {
      return {
        policy: `"${POLICY}";q=${limitPerMinute};w=${WINDOW_MS / 1000}`,
        state: `"${POLICY}";r=${Math.max(0, limitPerMinute - count)};t=${secondsLeft(windowStart)}`,
      };
    },
  };
}

export type RequestLimiter = ReturnType<typeof createRequestLimiter>;
