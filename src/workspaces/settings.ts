// A workspace's settings (its name, the countries codes may go to, its limits): their bounds, how the stored ones
// read, and how a change is applied and written to the audit trail with the old and new values.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import type { Clock } from '../clock.js';
import { AppError, invalidField } from '../errors.js';
import type { Db } from '../store/database.js';
import { type Country, SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';
import * as repo from './repository.js';

/** What an operator may set per workspace: the one place these bounds are written. */
export const LIMIT_RANGES = {
  send_limit: { min: 1, max: 100 },
  send_window_seconds: { min: 60, max: 86_400 },
  request_limit_per_minute: { min: 10, max: 1_000_000 },
  guess_limit: { min: 1, max: 1000 },
  // At most a day: retention keeps failed checks that long (store/retention.ts GUESS_FAILURES_KEEP_MS).
  guess_window_seconds: { min: 60, max: 86_400 },
} as const;
export type LimitName = keyof typeof LIMIT_RANGES;

export interface WorkspaceSettings {
  id: string;
  name: string;
  /** The countries codes may be sent to; every supported country unless narrowed. */
  allowed_countries: Country[];
  limits: Record<LimitName, number>;
}

/** The stored JSON list of allowed countries (null: every supported country), in the supported order. */
export function allowedCountriesOf(json: string | null): Country[] {
  if (json === null) return [...SUPPORTED_COUNTRIES];
  const listed = JSON.parse(json) as string[];
  return SUPPORTED_COUNTRIES.filter((c) => listed.includes(c));
}

export function validateLimit(name: LimitName, value: number): number {
  const { min, max } = LIMIT_RANGES[name];
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidField(name, `must be a whole number from ${min} to ${max.toLocaleString('en-US')}`);
  }
  return value;
}

export function presentSettings(row: repo.WorkspaceRow): WorkspaceSettings {
  return {
    id: row.id,
    name: row.name,
    allowed_countries: allowedCountriesOf(row.allowed_countries),
    limits: {
      send_limit: row.send_limit,
      send_window_seconds: row.send_window_seconds,
      request_limit_per_minute: row.request_limit_per_minute,
      guess_limit: row.guess_limit,
      guess_window_seconds: row.guess_window_seconds,
    },
  };
}

/** A setting as the audit trail shows it: the countries as a list, not their stored JSON. */
function shownSetting(name: keyof repo.WorkspaceChanges, row: repo.WorkspaceRow): unknown {
  return name === 'allowed_countries' ? allowedCountriesOf(row.allowed_countries) : row[name];
}

export type SettingsAction = 'workspace.renamed' | 'countries.changed' | 'limits.changed';

/**
 * Applies validated settings and records what they changed (old and new values) as `action`. Under the
 * workspace's lock, so the old values are the ones replaced. Settings saved as they were change nothing and record
 * nothing.
 */
export function createSettingsChange(deps: { db: Db; clock: Clock; audit: AuditRecorder }) {
  const { db, clock, audit } = deps;
  return (id: string, changes: repo.WorkspaceChanges, action: SettingsAction, by: Actor) =>
    db.transaction().execute(async (tx): Promise<WorkspaceSettings> => {
      const old = await repo.lockWorkspace(tx, id, clock.now());
      if (!old) throw new AppError('not_found', `No workspace ${id}.`);
      const next = { ...old, ...changes };
      const changed = (Object.keys(changes) as (keyof repo.WorkspaceChanges)[]).filter(
        (name) => old[name] !== next[name],
      );
      if (changed.length === 0) return presentSettings(old);
      await repo.updateWorkspace(tx, id, changes, clock.now());
      await audit.record(tx, by, {
        workspaceId: id,
        action,
        target: id,
        details: {
          from: Object.fromEntries(changed.map((name) => [name, shownSetting(name, old)])),
          to: Object.fromEntries(changed.map((name) => [name, shownSetting(name, next)])),
        },
      });
      return presentSettings(next);
    });
}
