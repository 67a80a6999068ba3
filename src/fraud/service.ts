// The pumping guard (issue 12) as one service: the guard on the send path and the sweeper's judgement (guard.ts),
// the settings and allow list (settings.ts), and the blocks' list and lift (blocks.ts). Bots request codes to ranges
// of premium or colluding numbers and the customer pays; docs/api.md "Pumping guard" has the rules.
import type { AuditRecorder } from '../audit/record.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { createFraudBlocks } from './blocks.js';
import { createFraudGuard } from './guard.js';
import { createFraudSettings } from './settings.js';

export function createFraudService(deps: {
  db: Db;
  /** The store's reader: the conversion signal's reads (guard.ts). */
  reader: Db;
  /** Writes the audit trail's entry of each change, in the change's transaction. */
  audit: AuditRecorder;
  clock: Clock;
  workspaces: WorkspaceService;
  /** How long the history of blocks is kept (RETENTION_DAYS, like the verifications they refused). */
  retentionDays: number;
  /** The longest a code can stay pending (the API's largest ttl_seconds). */
  maxCodeLifetimeMs: number;
}) {
  return { ...createFraudGuard(deps), ...createFraudSettings(deps), ...createFraudBlocks(deps) };
}

export type FraudService = ReturnType<typeof createFraudService>;
