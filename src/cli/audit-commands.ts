// `audit list`: a workspace's audit trail, newest first, as the dashboard's Audit page shows it. The filters are
// checked by the same rule as the page's (audit/filter.ts); a bad one is a usage error.
import { type AuditFilter, parseAuditFilter } from '../audit/filter.js';
import type { AuditEntryView } from '../audit/log.js';
import { AppError } from '../errors.js';
import { type Command, optional, str, type Values, wholeNumber, workspaceIdOf } from './options.js';
import { printTable, UsageError } from './output.js';

function filterOf(values: Values): AuditFilter {
  try {
    return parseAuditFilter({
      action: optional(values, 'action'),
      actor: optional(values, 'actor'),
      limit: wholeNumber(values, 'limit'),
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') {
      const [first] = err.extras.errors ?? [];
      throw new UsageError(first ? `--${first.field}: ${first.message}` : err.message);
    }
    throw err;
  }
}

/** One line an operator can read: who, what, on what, and what changed. */
function shown(entry: AuditEntryView) {
  return {
    at: entry.at,
    actor: entry.actor_email ?? entry.actor,
    action: entry.action,
    target: entry.target,
    details: JSON.stringify(entry.details),
    address: entry.address,
  };
}

export const AUDIT_COMMANDS: Record<string, Command> = {
  'audit list': {
    summary: 'who changed what in a workspace, newest first',
    example: 'phone-verify audit list --workspace ws_… --action key.revoked',
    usage: 'audit list --workspace WS_ID [--limit N] [--action ACTION] [--actor cli|system|ACCOUNT_ID]',
    options: { workspace: str, limit: str, action: str, actor: str },
    run: async (s, v) => {
      const workspaceId = workspaceIdOf(v);
      return (await s.audit.list(workspaceId, filterOf(v))).entries;
    },
    print: (r) =>
      printTable((r as AuditEntryView[]).map(shown), [
        'at',
        'actor',
        'action',
        'target',
        'details',
        'address',
      ]),
  },
};
