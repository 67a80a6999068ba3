// Deleting a workspace (`phone-verify workspace delete`): everything it holds goes in one transaction (its keys, so
// no request authenticates with them from the next one; its numbers, carrier accounts, verifications, delivery
// jobs, outbox, limits' counters, fraud state and memberships), and the deletion is written to its audit trail,
// which is kept (AUDIT_RETENTION_DAYS prunes it like any other). Under the workspace's row lock: a concurrent
// settings change or second deletion waits, then finds no workspace.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import {
  countWorkspace,
  deleteWorkspaceRows,
  lockWorkspaceForDeletion,
  memberIds,
  type WorkspaceCounts,
} from './deletion-repository.js';
import * as repo from './repository.js';

export interface WorkspaceDeletion {
  id: string;
  name: string;
  /** What it held when it was deleted (or holds, for a preview). */
  counts: WorkspaceCounts;
  deleted: boolean;
}

export function createWorkspaceDeletion(deps: { db: Db; audit: AuditRecorder }) {
  const { db, audit } = deps;

  return {
    /** What deleting the workspace would delete; nothing changes. */
    async previewDeletion(workspaceId: string): Promise<WorkspaceDeletion> {
      const row = await repo.findWorkspace(db, workspaceId);
      if (!row) throw new AppError('not_found', `No workspace ${workspaceId}.`);
      return { id: row.id, name: row.name, counts: await countWorkspace(db, workspaceId), deleted: false };
    },

    async deleteWorkspace(workspaceId: string, by: Actor): Promise<WorkspaceDeletion> {
      return db.transaction().execute(async (tx) => {
        const row = await lockWorkspaceForDeletion(tx, workspaceId);
        if (!row) throw new AppError('not_found', `No workspace ${workspaceId}.`);
        const counts = await countWorkspace(tx, workspaceId);
        const members = await memberIds(tx, workspaceId);
        await deleteWorkspaceRows(tx, workspaceId);
        await audit.record(tx, by, {
          workspaceId,
          action: 'workspace.deleted',
          target: workspaceId,
          details: { name: row.name, ...counts, member_ids: members },
        });
        return { id: row.id, name: row.name, counts, deleted: true };
      });
    },
  };
}
