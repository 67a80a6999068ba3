// The verification's own timeline events: what a spent attempt, an expiry or a supersede writes to the timeline.
import type { NewEvent } from '../timeline/timeline.js';
import type { SupersededRow, VerificationRow } from './repository.js';

export function expiredEvent(
  row: { id: string; workspace_id: string; expires_at: number },
  detail: NewEvent['detail'] = {},
): NewEvent {
  return {
    verificationId: row.id,
    workspaceId: row.workspace_id,
    kind: 'expired',
    detail: { expires_at: row.expires_at, ...detail },
  };
}

/** The events of one spent attempt: a wrong one (and the failure when it was the last), or the right one. */
export function attemptEvents(row: VerificationRow): NewEvent[] {
  const about = { verificationId: row.id, workspaceId: row.workspace_id };
  const counts = { attempt: row.attempts, max_attempts: row.max_attempts };
  if (row.status === 'verified') return [{ ...about, kind: 'verified', detail: counts }];
  const wrong: NewEvent = { ...about, kind: 'attempt', detail: counts };
  return row.status === 'failed' ? [wrong, { ...about, kind: 'failed', detail: counts }] : [wrong];
}

/** A newer send's effect on the number's pending code: superseded, or expired where its time had run out. */
export function supersedeEvents(
  workspaceId: string,
  changed: readonly SupersededRow[],
  newerId: string,
): NewEvent[] {
  return changed.map((old) =>
    old.status === 'expired'
      ? expiredEvent({ ...old, workspace_id: workspaceId }, { superseded_by: newerId })
      : { verificationId: old.id, workspaceId, kind: 'superseded', detail: { by: newerId } },
  );
}
