// Writes audit entries. The service method that makes a change calls `record` with the transaction of that change
// (`tx`), so the entry and the change commit together or not at all: an entry without its change, or a change
// without its entry, cannot be stored.
//
// What goes in is chosen by the caller, field by field, from what is safe to show every member of the workspace:
// ids, names, a key's display prefix, scopes, numbers, limits, a carrier's type and API origin. Never a key, a
// code, a password, a session token, a carrier credential or a webhook secret (test/audit/secrets.test.ts).
import type { Clock } from '../clock.js';
import { monotonicStamps } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { preparedInsert } from '../store/prepared.js';
import type { AuditAction } from '../vocabulary/audit-actions.js';
import type { Actor } from './actor.js';

export interface AuditEntry {
  workspaceId: string;
  action: AuditAction;
  /** The id of what was acted on. */
  target: string | null;
  /** What changed: small, and never a secret. */
  details?: Record<string, unknown>;
}

const insertEntry = preparedInsert('audit_log');

export function createAuditRecorder(deps: { clock: Clock }) {
  const nextSeq = monotonicStamps(deps.clock);

  return {
    /** Writes one entry in `tx`, the transaction of the change it records. */
    async record(tx: Db, by: Actor, entry: AuditEntry): Promise<void> {
      await insertEntry(tx, {
        id: newId('aud'),
        workspace_id: entry.workspaceId,
        at: deps.clock.now(),
        seq: nextSeq(),
        actor: by.kind === 'account' ? by.id : by.kind,
        actor_email: by.kind === 'account' ? by.email : null,
        action: entry.action,
        target: entry.target,
        details: JSON.stringify(entry.details ?? {}),
        address: by.kind === 'account' ? (by.address ?? null) : null,
      });
    },
  };
}

export type AuditRecorder = ReturnType<typeof createAuditRecorder>;
