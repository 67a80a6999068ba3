// The audit trail as the dashboard and the CLI read it: one workspace's entries, newest first, filtered by action
// and by actor, a page at a time. Each listing is one range of an index (migrations/0009-audit-log.ts).
import { toTimestamp } from '../clock.js';
import type { Db } from '../store/database.js';
import type { AuditLogTable } from '../store/tables.js';
import type { AuditAction } from '../vocabulary/audit-actions.js';
import type { AuditFilter } from './filter.js';

export interface AuditEntryView {
  id: string;
  workspace_id: string;
  at: string;
  /** 'cli', 'system' or the id of the dashboard account that acted. */
  actor: string;
  actor_email: string | null;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
  address: string | null;
}

export interface AuditPage {
  entries: AuditEntryView[];
  /** The cursor of the next (older) page; null on the last. */
  older: string | null;
}

function present(row: AuditLogTable): AuditEntryView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    at: toTimestamp(Number(row.at)),
    actor: row.actor,
    actor_email: row.actor_email,
    action: row.action,
    target: row.target,
    details: JSON.parse(row.details) as Record<string, unknown>,
    address: row.address,
  };
}

export function createAuditLog(deps: {
  db: Db;
  /** Throws not_found for an unknown workspace (the workspace service's rule, passed in from below it). */
  requireWorkspace: (id: string) => Promise<unknown>;
}) {
  const { db } = deps;

  return {
    /** A deleted workspace's trail stays readable: its last entry is the deletion (workspace.deleted). */
    async list(workspaceId: string, filter: AuditFilter): Promise<AuditPage> {
      await deps.requireWorkspace(workspaceId).catch(async (err: unknown) => {
        const deleted = await db
          .selectFrom('audit_log')
          .select('id')
          .where('workspace_id', '=', workspaceId)
          .where('action', '=', 'workspace.deleted')
          .executeTakeFirst();
        if (!deleted) throw err;
      });
      let query = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId);
      if (filter.action !== undefined) query = query.where('action', '=', filter.action);
      if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
      if (filter.before !== undefined) query = query.where('seq', '<', filter.before);
      const rows = await query
        .orderBy('seq', 'desc')
        .limit(filter.limit + 1)
        .execute();
      const page = rows.slice(0, filter.limit);
      const last = page[page.length - 1];
      return {
        entries: page.map(present),
        older: rows.length > filter.limit && last ? String(last.seq) : null,
      };
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
