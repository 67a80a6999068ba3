// The verification timeline: what happened to a verification and when, for the dashboard's detail view (the
// support case "the user says the code never arrived"). An event is written after the state change it
// describes, and only by the caller whose statement actually changed the row, so racing processes never write
// one twice. The timeline is a diagnostic: where no transaction holds the change, a failed write is logged and
// the request carries on.
import { type Clock, monotonicStamps } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { preparedInsertRows } from '../store/prepared.js';

const insertEvents = preparedInsertRows('verification_events');

import type { EventKind } from '../vocabulary/event-kinds.js';

export type EventDetail = Record<string, string | number | boolean | null>;

export interface NewEvent {
  verificationId: string;
  workspaceId: string;
  kind: EventKind;
  detail?: EventDetail;
}

export interface TimelineEvent {
  id: string;
  kind: EventKind;
  detail: EventDetail;
  /** Epoch ms. */
  at: number;
}

export interface Timeline {
  /** Writes events with the caller's database or transaction: inside a transaction they commit with it. */
  record(db: Db, events: readonly NewEvent[]): Promise<void>;
  /** Writes events about a change already committed; never throws (a failure is reported to `warn`). */
  recordAfter(events: readonly NewEvent[]): Promise<void>;
  /** Ids and places in the order for `count` events that a statement of the caller's own writes (a gap is harmless). */
  reserve(count: number): { id: string; seq: number }[];
}

// One sequence per clock, so every recorder of a process (the service, the delivery reports) orders its
// events in the same sequence even when they share a millisecond.
const sequences = new WeakMap<Clock, () => number>();

function sequenceFor(clock: Clock): () => number {
  let next = sequences.get(clock);
  if (!next) {
    next = monotonicStamps(clock);
    sequences.set(clock, next);
  }
  return next;
}

function reportToStderr(err: unknown): void {
  process.emitWarning(`verification timeline: an event could not be written (${String(err)})`);
}

export function createTimeline(deps: { db: Db; clock: Clock; warn?: (err: unknown) => void }): Timeline {
  const nextSeq = sequenceFor(deps.clock);
  const warn = deps.warn ?? reportToStderr;

  async function record(db: Db, events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const at = deps.clock.now();
    // One statement for all of them (a send writes two or three): one round trip, compiled once per count.
    await insertEvents(
      db,
      events.map((e) => ({
        id: newId('evt'),
        verification_id: e.verificationId,
        workspace_id: e.workspaceId,
        kind: e.kind,
        detail: e.detail === undefined ? null : JSON.stringify(e.detail),
        at,
        seq: nextSeq(),
      })),
    );
  }

  return {
    record,
    reserve: (count) => Array.from({ length: count }, () => ({ id: newId('evt'), seq: nextSeq() })),
    async recordAfter(events) {
      try {
        await record(deps.db, events);
      } catch (err) {
        warn(err);
      }
    },
  };
}

/** A verification's events in the order they happened: the order of the table's key (migration 0020). */
export function eventsQuery(db: Db, workspaceId: string, verificationId: string) {
  return db
    .selectFrom('verification_events')
    .select(['id', 'kind', 'detail', 'at'])
    .where('verification_id', '=', verificationId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('seq')
    .orderBy('id');
}

/** A verification's events in the order they happened. */
export async function listEvents(
  db: Db,
  workspaceId: string,
  verificationId: string,
): Promise<TimelineEvent[]> {
  const rows = await eventsQuery(db, workspaceId, verificationId).execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    detail: r.detail === null ? {} : (JSON.parse(r.detail) as EventDetail),
    at: r.at,
  }));
}
