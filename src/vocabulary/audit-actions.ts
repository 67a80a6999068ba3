// What the audit trail can say someone did in a workspace: one list for the table type, the services that write
// entries, the dashboard's filter and the CLI's --action. To record a new kind of change, add its name here; the dashboard's labels (a record over this list) then ask for its wording,
// and the service method that makes the change writes the entry with the change's own transaction.
export const AUDIT_ACTIONS = [
  'workspace.created',
  'workspace.renamed',
  'workspace.deleted',
  'countries.changed',
  'limits.changed',
  'number.added',
  'number.removed',
  'number.carrier_changed',
  'key.created',
  'key.revoked',
  'carrier.added',
  'carrier.rotated',
  'carrier.removed',
  'member.added',
  'account.removed',
  'account.password_reset',
  'signin.succeeded',
  'signin.failed',
  'fraud.settings_changed',
  'fraud.allow_added',
  'fraud.allow_removed',
  'fraud.block_lifted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
