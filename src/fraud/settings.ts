// The pumping guard's settings and allow list per workspace (docs/operations.md "Pumping guard"), for the CLI and
// the dashboard: each change is validated by rules.ts and recorded in the audit trail in its own transaction.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { WorkspaceService } from '../workspaces/service.js';
import * as repo from './repository.js';
import {
  FRAUD_DEFAULTS,
  type FraudLimits,
  type FraudSettingName,
  MAX_ALLOW_ENTRIES,
  validatePrefix,
  validateSetting,
} from './rules.js';

const SETTING_NAMES = Object.keys(FRAUD_DEFAULTS) as FraudSettingName[];

export interface FraudSettingsView extends FraudLimits {
  workspace_id: string;
  /** Numbers and ranges (E.164 prefixes) never blocked. */
  allow: string[];
}

export function createFraudSettings(deps: {
  db: Db;
  /** Writes the audit trail's entry of each change, in the change's transaction. */
  audit: AuditRecorder;
  clock: Clock;
  workspaces: WorkspaceService;
}) {
  const { db, clock, workspaces, audit } = deps;

  async function settingsOf(workspaceId: string): Promise<FraudSettingsView> {
    await workspaces.requireWorkspace(workspaceId);
    const row = await repo.findSettings(db, workspaceId);
    const allow = (await repo.listAllow(db, workspaceId)).map((r) => r.prefix);
    const limits = Object.fromEntries(SETTING_NAMES.map((n) => [n, row?.[n] ?? FRAUD_DEFAULTS[n]]));
    return { workspace_id: workspaceId, ...(limits as FraudLimits), allow };
  }

  return {
    getSettings: settingsOf,

    /** Sets the settings given; the others keep their values. */
    async setSettings(
      workspaceId: string,
      given: Partial<Record<FraudSettingName, unknown>>,
      by: Actor,
    ): Promise<FraudSettingsView> {
      const current = await settingsOf(workspaceId);
      const next = { ...current };
      for (const name of SETTING_NAMES) {
        if (given[name] !== undefined) next[name] = validateSetting(name, given[name]);
      }
      const changed = SETTING_NAMES.filter((n) => current[n] !== next[n]);
      // Saved as they were: nothing changes, nothing is recorded.
      if (changed.length === 0) return next;
      await db.transaction().execute(async (tx) => {
        const limits = Object.fromEntries(SETTING_NAMES.map((n) => [n, next[n]])) as FraudLimits;
        await repo.saveSettings(tx, { workspace_id: workspaceId, ...limits, updated_at: clock.now() });
        await audit.record(tx, by, {
          workspaceId,
          action: 'fraud.settings_changed',
          target: workspaceId,
          details: {
            from: Object.fromEntries(changed.map((n) => [n, current[n]])),
            to: Object.fromEntries(changed.map((n) => [n, next[n]])),
          },
        });
      });
      return next;
    },

    /** Adds a number or range to the allow list (idempotent). */
    async allow(workspaceId: string, input: unknown, by: Actor): Promise<FraudSettingsView> {
      const prefix = validatePrefix(input);
      const current = await settingsOf(workspaceId);
      if (current.allow.includes(prefix)) return current;
      // A soft cap (two concurrent adds may both pass it): it only keeps the send's allow check short.
      if ((await repo.countAllow(db, workspaceId)) >= MAX_ALLOW_ENTRIES) {
        throw new AppError('conflict', `The allow list holds at most ${MAX_ALLOW_ENTRIES} entries.`);
      }
      await db.transaction().execute(async (tx) => {
        await repo.addAllow(tx, { workspaceId, prefix, now: clock.now() });
        await audit.record(tx, by, {
          workspaceId,
          action: 'fraud.allow_added',
          target: null,
          details: { prefix },
        });
      });
      return settingsOf(workspaceId);
    },

    /** Removes an entry from the allow list; not_found when it is not listed. */
    async disallow(workspaceId: string, input: unknown, by: Actor): Promise<FraudSettingsView> {
      const prefix = validatePrefix(input);
      await workspaces.requireWorkspace(workspaceId);
      await db.transaction().execute(async (tx) => {
        if (!(await repo.removeAllow(tx, workspaceId, prefix))) {
          throw new AppError('not_found', `${prefix} is not on the allow list.`);
        }
        await audit.record(tx, by, {
          workspaceId,
          action: 'fraud.allow_removed',
          target: null,
          details: { prefix },
        });
      });
      return settingsOf(workspaceId);
    },
  };
}

export type FraudSettings = ReturnType<typeof createFraudSettings>;
