// Reading the audit trail in tests: the entries one action added (through the service the edges read it with),
// and the raw rows of the table (for checks that must see every column, such as "no secret anywhere").
import assert from 'node:assert/strict';
import type { AuditEntryView } from '../../src/audit/log.js';
import type { Services } from '../../src/services.js';
import type { Store } from '../../src/store/database.js';
import type { AuditLogTable } from '../../src/store/tables.js';

/** Every entry of a workspace, newest first. */
export async function entriesOf(services: Services, workspaceId: string): Promise<AuditEntryView[]> {
  return (await services.audit.list(workspaceId, { limit: 500 })).entries;
}

/** Runs `act` and returns the entries it added to the workspace's trail, oldest first. */
export async function entriesAddedBy(
  services: Services,
  workspaceId: string,
  act: () => Promise<unknown>,
): Promise<AuditEntryView[]> {
  const before = new Set((await entriesOf(services, workspaceId)).map((e) => e.id));
  await act();
  return (await entriesOf(services, workspaceId)).filter((e) => !before.has(e.id)).reverse();
}

/** Runs `act`, which must add exactly one entry to the workspace's trail: that entry. */
export async function oneEntryAddedBy(
  services: Services,
  workspaceId: string,
  act: () => Promise<unknown>,
): Promise<AuditEntryView> {
  const added = await entriesAddedBy(services, workspaceId, act);
  assert.equal(added.length, 1, `expected one entry, got ${JSON.stringify(added, null, 2)}`);
  return added[0] as AuditEntryView;
}

/** Every row of the table, in any workspace. */
export function auditRows(store: Store): Promise<AuditLogTable[]> {
  return store.db.selectFrom('audit_log').selectAll().orderBy('seq').execute();
}
