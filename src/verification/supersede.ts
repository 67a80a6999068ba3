// A send's supersede: the number's pending code of the send's mode canceled by the newer send (or recorded expired,
// where its time had run out), and the timeline's events of that, which commit with the send. Where the rows are
// needed back (SQLite, whose statements cost no round trip; a workspace with webhook endpoints, whose events carry
// the rows) the statement runs and the events go with the send's own. On PostgreSQL otherwise one statement writes
// both, sent ahead (store/postgres-pipeline.ts): it goes with the send's inserts and its COMMIT, one round trip.
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/prepared.js';
import type { NewEvent, Timeline } from '../timeline/timeline.js';
import type { Mode } from '../vocabulary/modes.js';
import * as repo from './repository.js';
import { supersedeEvents } from './timeline-events.js';

export interface Superseded {
  /** The rows it changed, whole; only where asked for (`rowsWanted`). */
  rows: repo.VerificationRow[];
  /** Their timeline events, for the caller to record with the send's (none where the statement wrote them). */
  events: NewEvent[];
}

export async function supersedeOlder(
  tx: Db,
  timeline: Timeline,
  p: { workspaceId: string; phone: string; now: number; mode: Mode; newerId: string; rowsWanted: boolean },
): Promise<Superseded> {
  const { newerId, rowsWanted, ...sending } = p;
  if (rowsWanted) {
    const rows = await repo.supersedePendingRows(tx, sending);
    return { rows, events: supersedeEvents(p.workspaceId, rows, newerId) };
  }
  if (dialectOf(tx) === 'postgres') {
    const [reserved] = timeline.reserve(1);
    if (!reserved) throw new Error('no timeline place was reserved');
    await repo.supersedeWithEvents.ahead(tx, {
      ...sending,
      newerId,
      eventId: reserved.id,
      seq: reserved.seq,
    });
    return { rows: [], events: [] };
  }
  const changed = await repo.supersedePending(tx, sending);
  return { rows: [], events: supersedeEvents(p.workspaceId, changed, newerId) };
}
