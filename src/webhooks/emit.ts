// Emitting an event: called in the transaction of the state change it reports, it fans the event out to the
// workspace's enabled endpoints that take its type, in one statement compiled once (messages.ts `fanOut`). The
// body is the snapshot every attempt sends: {"type", "timestamp", "data": the verification as GET presents it}.
// A caller that knows its workspace has no enabled endpoint (the count read with every API key) does not call it.
import { type Clock, toTimestamp } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import type { VerificationsTable } from '../store/tables.js';
import type { WebhookEventType } from '../vocabulary/webhook-events.js';
import { fanOut } from './messages.js';

export type EmitEvent = (tx: Db, type: WebhookEventType, row: VerificationsTable) => Promise<void>;

/** `present`: the verification as the API shows it (verification/present.ts), given by the composition root. */
export function createEmitter(deps: {
  clock: Clock;
  present: (row: VerificationsTable) => unknown;
}): EmitEvent {
  return async (tx, type, row) => {
    const now = deps.clock.now();
    const body = JSON.stringify({ type, timestamp: toTimestamp(now), data: deps.present(row) });
    await fanOut(tx, {
      eventId: newId('msg'),
      workspaceId: row.workspace_id,
      type,
      pattern: `%,${type},%`,
      verificationId: row.id,
      body,
      now,
    });
  };
}

/** An emitter that emits nothing (services built without webhooks, in tests). */
export const emitNothing: EmitEvent = async () => {};
