// Workspaces and their numbers: what the CLI (and later the dashboard) administers.
import { type Clock, monotonicStamps, toTimestamp } from '../clock.js';
import { AppError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { validateBrandName } from './brand-name.js';
import {
  detectNumberType,
  NUMBER_TYPES,
  type NumberType,
  parsePhone,
  SUPPORTED_COUNTRIES,
} from './phone-number.js';
import * as repo from './repository.js';

export const DEFAULT_LIMITS = {
  sendLimit: 5,
  sendWindowSeconds: 600,
  requestLimitPerMinute: 6000,
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
}

export function presentWorkspace(row: repo.WorkspaceRow): WorkspaceView {
  return { id: row.id, name: row.name, created_at: toTimestamp(row.created_at) };
}

export function presentNumber(row: repo.NumberRow): NumberView {
  return { id: row.id, number: row.number, type: row.type as NumberType, country: row.country };
}

export function createWorkspaceService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const nextStamp = monotonicStamps(clock);

  async function requireWorkspace(id: string): Promise<repo.WorkspaceRow> {
    const row = await repo.findWorkspace(db, id);
    if (!row) throw new AppError('not_found', `No workspace ${id}.`);
    return row;
  }

  return {
    requireWorkspace,

    async createWorkspace(input: { name: string }): Promise<WorkspaceView> {
      const name = validateBrandName(input.name, 'name');
      const now = clock.now();
      const row: repo.WorkspaceRow = {
        id: newId('ws'),
        name,
        allowed_countries: null,
        send_limit: DEFAULT_LIMITS.sendLimit,
        send_window_seconds: DEFAULT_LIMITS.sendWindowSeconds,
        request_limit_per_minute: DEFAULT_LIMITS.requestLimitPerMinute,
        created_at: now,
        updated_at: now,
      };
      await repo.insertWorkspace(db, row);
      return presentWorkspace(row);
    },

    async listWorkspaces(): Promise<WorkspaceView[]> {
      return (await repo.listWorkspaces(db)).map(presentWorkspace);
    },

    async addNumber(input: { workspaceId: string; number: string; type?: string }): Promise<NumberView> {
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
          `the type of ${e164} cannot be told from the number itself: pass --type ${NUMBER_TYPES.join('|')}`,
        );
      }
      if (await repo.findNumber(db, input.workspaceId, e164)) {
        throw new AppError('conflict', `${e164} is already a number of workspace ${input.workspaceId}.`);
      }
      const row: repo.NumberRow = {
        id: newId('num'),
        workspace_id: input.workspaceId,
        number: e164,
        type,
        country,
        created_at: clock.now(),
        seq: nextStamp(),
      };
      await repo.insertNumber(db, row);
      return presentNumber(row);
    },

    async listNumbers(workspaceId: string): Promise<NumberView[]> {
      await requireWorkspace(workspaceId);
      return (await repo.listNumbers(db, workspaceId)).map(presentNumber);
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
