// SQL for webhook messages: one per event and endpoint, the delivery job of that event to that endpoint. An event
// is fanned out to the matching endpoints by one INSERT … SELECT in the transaction of the state change it
// reports, so the change and its messages commit together. A message is worked only by the holder of its lease
// (claimed in one statement, every later write names the token), so of several processes exactly one makes each
// attempt. Settled messages stay (the dashboard's "resend") until retention prunes them.
import { sql } from 'kysely';
import type { Db, Store } from '../store/database.js';
import { withLockedBatch } from '../store/locked-batch.js';
import { prepared } from '../store/prepared.js';
import type { WebhookMessagesTable } from '../store/tables.js';

export type MessageRow = WebhookMessagesTable;

export interface FanOutInputs {
  [key: string]: unknown;
  eventId: string;
  workspaceId: string;
  type: string;
  /** LIKE pattern of the type in an endpoint's ',type,type,' list. */
  pattern: string;
  verificationId: string;
  body: string;
  now: number;
}

// Compiled once per dialect. The casts give PostgreSQL the parameters' types in a SELECT list.
export const fanOut = prepared((db, p: FanOutInputs) =>
  db
    .insertInto('webhook_messages')
    .columns([
      'event_id',
      'endpoint_id',
      'workspace_id',
      'type',
      'verification_id',
      'body',
      'state',
      'next_attempt_at',
      'created_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select([
          sql<string>`cast(${p.eventId} as text)`.as('event_id'),
          'id',
          'workspace_id',
          sql<string>`cast(${p.type} as text)`.as('type'),
          sql<string>`cast(${p.verificationId} as text)`.as('verification_id'),
          sql<string>`cast(${p.body} as text)`.as('body'),
          sql<string>`'pending'`.as('state'),
          sql<number>`cast(${p.now} as bigint)`.as('next_attempt_at'),
          sql<number>`cast(${p.now} as bigint)`.as('created_at'),
        ])
        .where('workspace_id', '=', p.workspaceId)
        .where('disabled_at', 'is', null)
        .where((w) => w.or([w('events', 'is', null), w('events', 'like', p.pattern)])),
    ),
);

export async function insertMessage(db: Db, row: MessageRow): Promise<void> {
  await db.insertInto('webhook_messages').values(row).execute();
}

/** Whether any message is due and free: a read, so an idle poll takes no write lock. */
export async function anyDue(db: Db, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_messages')
    .select('event_id')
    .where('state', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims up to `limit` due messages nobody holds. PostgreSQL locks the candidates with SKIP LOCKED, so several
 * processes take disjoint sets; SQLite's single writer makes the statement atomic on its own. The batch is chosen
 * once (store/locked-batch.ts): never more than `limit` messages, whatever plan PostgreSQL makes.
 */
export function claimDue(
  store: Store,
  input: { now: number; leaseMs: number; token: string; limit: number },
): Promise<MessageRow[]> {
  const { now, leaseMs, token, limit } = input;
  const due = store.db
    .selectFrom('webhook_messages')
    .select(['event_id', 'endpoint_id'])
    .where('state', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit);
  return withLockedBatch(store.db, due)
    .updateTable('webhook_messages')
    .set({ lease_until: now + leaseMs, lease_token: token })
    .where((eb) =>
      eb(
        eb.refTuple('event_id', 'endpoint_id'),
        'in',
        eb.selectFrom('batch').select(['event_id', 'endpoint_id']).$asTuple('event_id', 'endpoint_id'),
      ),
    )
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<=', now)
    .returningAll()
    .execute();
}

type Key = { event_id: string; endpoint_id: string };

/** Settles or reschedules a held message; false when the lease was lost (another process holds it now). */
export async function updateHeld(
  db: Db,
  held: Key,
  token: string,
  next:
    | { state: 'delivered' | 'failed'; attempts: number; settledAt: number }
    | { state: 'pending'; attempts: number; nextAttemptAt: number },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_messages')
    .set(
      next.state === 'pending'
        ? { attempts: next.attempts, next_attempt_at: next.nextAttemptAt, lease_until: 0, lease_token: null }
        : {
            state: next.state,
            attempts: next.attempts,
            settled_at: next.settledAt,
            lease_until: 0,
            lease_token: null,
          },
    )
    .where('event_id', '=', held.event_id)
    .where('endpoint_id', '=', held.endpoint_id)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A disabled endpoint's messages still waiting: failed, none is attempted again. */
export async function failPending(db: Db, endpointId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('webhook_messages')
    .set({ state: 'failed', settled_at: now, lease_until: 0, lease_token: null })
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Queues a message again for one attempt now (the dashboard's "resend"), with the same webhook-id and body. A
 * settled message gets that one attempt (`attemptsLeftFrom`: no retries after it); a pending one is just due now.
 */
export function requeue(
  db: Db,
  key: Key,
  now: number,
  attemptsLeftFrom: number,
): Promise<MessageRow | undefined> {
  return db
    .updateTable('webhook_messages')
    .set({
      state: 'pending',
      next_attempt_at: now,
      attempts: sql<number>`CASE WHEN state = 'pending' THEN attempts ELSE ${attemptsLeftFrom} END`,
      settled_at: null,
    })
    .where('event_id', '=', key.event_id)
    .where('endpoint_id', '=', key.endpoint_id)
    .returningAll()
    .executeTakeFirst();
}

export function findMessage(db: Db, key: Key): Promise<MessageRow | undefined> {
  return db
    .selectFrom('webhook_messages')
    .selectAll()
    .where('event_id', '=', key.event_id)
    .where('endpoint_id', '=', key.endpoint_id)
    .executeTakeFirst();
}
