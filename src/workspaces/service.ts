// Workspaces and their numbers: what the CLI and the dashboard administer. Every change is written to the audit
// trail in its own transaction, with who made it (`by`).
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, monotonicStamps, toTimestamp } from '../clock.js';
import { AppError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { type Country, SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';
import { NUMBER_TYPES, type NumberType } from '../vocabulary/number-types.js';
import { validateBrandName } from './brand-name.js';
import { createWorkspaceDeletion } from './deletion.js';
import { detectNumberType, parsePhone } from './phone-number.js';
import * as repo from './repository.js';
import {
  createSettingsChange,
  LIMIT_RANGES,
  type LimitName,
  presentSettings,
  validateLimit,
  type WorkspaceSettings,
} from './settings.js';

export {
  allowedCountriesOf,
  LIMIT_RANGES,
  type LimitName,
  type WorkspaceSettings,
} from './settings.js';

export const DEFAULT_LIMITS = {
  sendLimit: 5,
  sendWindowSeconds: 600,
  requestLimitPerMinute: 6000,
  // NIST SP 800-63B 5.2.2: failed attempts are limited per subject, not per code (limits/guess-ceiling.ts).
  guessLimit: 20,
  guessWindowSeconds: 3600,
} as const;

export interface WorkspaceView {
  id: string;
  name: string;
  created_at: string;
}

export interface NumberView {
  id: string;
  number: string;
  type: NumberType;
  country: string;
  /** The carrier account it sends through; null: the development provider. */
  carrier_id: string | null;
}

export function presentWorkspace(row: repo.WorkspaceRow): WorkspaceView {
  return { id: row.id, name: row.name, created_at: toTimestamp(row.created_at) };
}

export function presentNumber(row: repo.NumberRow): NumberView {
  return {
    id: row.id,
    number: row.number,
    type: row.type,
    country: row.country,
    carrier_id: row.carrier_id,
  };
}

export function createWorkspaceService(deps: { db: Db; clock: Clock; audit: AuditRecorder }) {
  const { db, clock, audit } = deps;
  const nextStamp = monotonicStamps(clock);
  const update = createSettingsChange({ db, clock, audit });

  async function requireWorkspace(id: string): Promise<repo.WorkspaceRow> {
    const row = await repo.findWorkspace(db, id);
    if (!row) throw new AppError('not_found', `No workspace ${id}.`);
    return row;
  }

  return {
    requireWorkspace,
    ...createWorkspaceDeletion({ db, audit }),

    /** The workspace a number belongs to (the CLI names a number by its id alone). */
    async workspaceOfNumber(numberId: string): Promise<string> {
      const workspaceId = await repo.workspaceOfNumber(db, numberId);
      if (workspaceId === undefined) throw new AppError('not_found', `No number ${numberId}.`);
      return workspaceId;
    },

    /** `tx`: the caller's transaction, where the workspace must appear together with other rows. */
    async createWorkspace(input: { name: string }, by: Actor, tx?: Db): Promise<WorkspaceView> {
      const name = validateBrandName(input.name, 'name');
      const now = clock.now();
      const row: repo.WorkspaceRow = {
        id: newId('ws'),
        name,
        allowed_countries: null,
        send_limit: DEFAULT_LIMITS.sendLimit,
        send_window_seconds: DEFAULT_LIMITS.sendWindowSeconds,
        request_limit_per_minute: DEFAULT_LIMITS.requestLimitPerMinute,
        guess_limit: DEFAULT_LIMITS.guessLimit,
        guess_window_seconds: DEFAULT_LIMITS.guessWindowSeconds,
        created_at: now,
        updated_at: now,
        webhook_endpoints: 0,
      };
      const insert = async (t: Db) => {
        await repo.insertWorkspace(t, row);
        await audit.record(t, by, {
          workspaceId: row.id,
          action: 'workspace.created',
          target: row.id,
          details: { name },
        });
      };
      if (tx) await insert(tx);
      else await db.transaction().execute(insert);
      return presentWorkspace(row);
    },

    async listWorkspaces(): Promise<WorkspaceView[]> {
      return (await repo.listWorkspaces(db)).map(presentWorkspace);
    },

    async addNumber(
      input: {
        workspaceId: string;
        number: string;
        type?: string;
        /** A carrier account of the same workspace; without one the number uses the development provider. */
        carrierId?: string;
      },
      by: Actor,
    ): Promise<NumberView> {
      await requireWorkspace(input.workspaceId);
      if (input.type !== undefined && !NUMBER_TYPES.includes(input.type as NumberType)) {
        throw invalidField('type', `must be one of ${NUMBER_TYPES.join(', ')}`);
      }
      if (!input.number.trim().startsWith('+')) {
        throw new AppError('invalid_phone', 'Give the workspace number in E.164 form, e.g. +61491570156.');
      }
      const { e164, country } = parsePhone(input.number, undefined, SUPPORTED_COUNTRIES);
      const detected = detectNumberType(e164);
      const given = input.type as NumberType | undefined;
      if (given && detected && given !== detected) {
        throw invalidField('type', `${e164} is a ${detected} number, not ${given}`);
      }
      const type = given ?? detected;
      if (!type) {
        throw invalidField(
          'type',
          `the type of ${e164} cannot be told from the number itself: give it (${NUMBER_TYPES.join(', ')})`,
        );
      }
      const row: repo.NumberRow = {
        id: newId('num'),
        workspace_id: input.workspaceId,
        number: e164,
        type,
        country,
        created_at: clock.now(),
        seq: nextStamp(),
        carrier_id: input.carrierId ?? null,
      };
      const carrierId = input.carrierId;
      await db.transaction().execute(async (tx) => {
        // Under the account's lock: a concurrent removal of the account either sees this number or goes first.
        if (carrierId !== undefined && !(await repo.lockCarrierAccount(tx, input.workspaceId, carrierId))) {
          // Another workspace's account is answered like an unknown one.
          throw new AppError(
            'not_found',
            `No carrier account ${carrierId} in workspace ${input.workspaceId}.`,
          );
        }
        if (await repo.findNumber(tx, input.workspaceId, e164)) {
          throw new AppError('conflict', `${e164} is already a number of workspace ${input.workspaceId}.`);
        }
        await repo.insertNumber(tx, row);
        await audit.record(tx, by, {
          workspaceId: input.workspaceId,
          action: 'number.added',
          target: row.id,
          details: { number: e164, type, country, carrier_id: row.carrier_id },
        });
      });
      return presentNumber(row);
    },

    /** The number removed. Scoped by workspace: another workspace's number id is answered like an unknown one. */
    async removeNumber(input: { workspaceId: string; numberId: string }, by: Actor): Promise<NumberView> {
      return db.transaction().execute(async (tx) => {
        const removed = await repo.deleteNumber(tx, input.workspaceId, input.numberId);
        if (!removed) throw new AppError('not_found', `No number ${input.numberId} in this workspace.`);
        await audit.record(tx, by, {
          workspaceId: input.workspaceId,
          action: 'number.removed',
          target: removed.id,
          details: { number: removed.number, carrier_id: removed.carrier_id },
        });
        return presentNumber(removed);
      });
    },

    async getSettings(workspaceId: string): Promise<WorkspaceSettings> {
      return presentSettings(await requireWorkspace(workspaceId));
    },

    /** The name is the default brand of every message, so it follows the brand-name rules. */
    async renameWorkspace(
      input: { workspaceId: string; name: string },
      by: Actor,
    ): Promise<WorkspaceSettings> {
      const name = validateBrandName(input.name, 'name');
      return update(input.workspaceId, { name }, 'workspace.renamed', by);
    },

    async setAllowedCountries(
      input: { workspaceId: string; countries: readonly string[] },
      by: Actor,
    ): Promise<WorkspaceSettings> {
      const unknown = input.countries.filter((c) => !SUPPORTED_COUNTRIES.includes(c as Country));
      if (unknown.length > 0) {
        throw invalidField(
          'countries',
          `unknown ${unknown.join(', ')}; supported: ${SUPPORTED_COUNTRIES.join(', ')}`,
        );
      }
      const countries = SUPPORTED_COUNTRIES.filter((c) => input.countries.includes(c));
      if (countries.length === 0) throw invalidField('countries', 'choose at least one country');
      return update(
        input.workspaceId,
        { allowed_countries: JSON.stringify(countries) },
        'countries.changed',
        by,
      );
    },

    /** Sets the limits given, each inside its range; the others stay as they are. */
    async setLimits(
      input: { workspaceId: string; limits: Partial<Record<LimitName, number>> },
      by: Actor,
    ): Promise<WorkspaceSettings> {
      const changes: Partial<Record<LimitName, number>> = {};
      for (const name of Object.keys(LIMIT_RANGES) as LimitName[]) {
        const value = input.limits[name];
        if (value !== undefined) changes[name] = validateLimit(name, value);
      }
      return update(input.workspaceId, changes, 'limits.changed', by);
    },

    async listNumbers(workspaceId: string): Promise<NumberView[]> {
      await requireWorkspace(workspaceId);
      return (await repo.listNumbers(db, workspaceId)).map(presentNumber);
    },

    /** Numbers whose codes go to the development outbox (no carrier): in one workspace, or in every one. */
    async numbersWithoutCarrier(workspaceId?: string): Promise<NumberView[]> {
      return (await repo.numbersWithoutCarrier(db, workspaceId)).map(presentNumber);
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
