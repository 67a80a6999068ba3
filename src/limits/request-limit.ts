// The per-workspace request limit: a fixed one-minute window counted in the database, so it holds across
// every process that shares it. One upsert both counts the request and reads the total, atomically.
// Old windows are deleted by retention (store/retention.ts).
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';

const WINDOW_MS = 60_000;

/** Counts one request in its window and reads the window's total, in one statement. */
const countRequest = prepared((db, p: { workspaceId: string; windowStart: number }) =>
  db
    .insertInto('request_counters')
    .values({ workspace_id: p.workspaceId, window_start: p.windowStart, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'window_start'])
        .doUpdateSet({ count: sql<number>`request_counters.count + 1` }),
    )
    .returning('count'),
);

export function createRequestLimiter(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  return {
    async take(workspaceId: string, limitPerMinute: number): Promise<void> {
      const now = clock.now();
      const windowStart = now - (now % WINDOW_MS);
      const count = (await countRequest(db, { workspaceId, windowStart })).rows[0]?.count ?? 0;
      if (count > limitPerMinute) {
        throw new AppError('rate_limited', `At most ${limitPerMinute} requests a minute per workspace.`, {
          retry_after: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
        });
      }
    },
  };
}

export type RequestLimiter = ReturnType<typeof createRequestLimiter>;
