// API keys: created (shown once), listed, revoked, and resolved from a request header on every call. Creating
// and revoking are written to the audit trail with the change (the key's name, prefix and scopes; never the key).
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp } from '../clock.js';
import { AppError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { isMode, MODES, type Mode } from '../vocabulary/modes.js';
import type { RequestColumn, WorkspaceRow } from '../workspaces/repository.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { admit } from './admission.js';
import { displayPrefix, generateKey, hashKey, isWellFormedKey } from './key-format.js';
import * as repo from './repository.js';
import { isScope, SCOPES, type Scope } from './scopes.js';

export const MAX_ACTIVE_KEYS = 25;
const KEY_NAME_MAX = 100;

export interface KeyView {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  scopes: string[];
  /** live, or test: the key's verifications never reach a carrier (docs/api.md, "Test mode"). */
  mode: Mode;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface CreatedKey extends KeyView {
  /** The key itself: returned this once, never stored. */
  key: string;
}

/** The workspace's settings as the request's key lookup read them (this request's own read, never a cache). */
export type PrincipalWorkspace = Pick<WorkspaceRow, 'id' | RequestColumn>;

export interface Principal {
  keyId: string;
  keyName: string;
  workspaceId: string;
  scopes: readonly string[];
  requestLimitPerMinute: number;
  /** The key's mode, read with it: every verification it sends, reads, checks or cancels is of this mode. */
  mode: Mode;
  workspace: PrincipalWorkspace;
}

function keyStatus(row: Pick<repo.KeyRow, 'revoked_at' | 'expires_at'>, now: number): KeyView['status'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

const stamp = (ms: number | null) => (ms === null ? null : toTimestamp(ms));

export function presentKey(row: repo.KeyRow, now: number): KeyView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as string[],
    mode: row.mode,
    status: keyStatus(row, now),
    created_at: toTimestamp(row.created_at),
    expires_at: stamp(row.expires_at),
    revoked_at: stamp(row.revoked_at),
    last_used_at: stamp(row.last_used_at),
  };
}

/** One answer for unknown, revoked and expired keys, so a caller cannot tell which it holds. */
const invalidKey = () => new AppError('invalid_api_key', 'The API key is not valid.');

export function createKeyService(deps: {
  db: Db;
  clock: Clock;
  workspaces: WorkspaceService;
  audit: AuditRecorder;
}) {
  const { db, clock, workspaces, audit } = deps;

  return {
    async createKey(
      input: {
        workspaceId: string;
        name: string;
        scopes?: readonly string[];
        expiresInSeconds?: number;
        /** live (the default) or test. */
        mode?: string;
      },
      by: Actor,
    ): Promise<CreatedKey> {
      const name = input.name.trim();
      if (name.length === 0 || name.length > KEY_NAME_MAX) {
        throw invalidField('name', `must be 1 to ${KEY_NAME_MAX} characters`);
      }
      const scopes = [...new Set(input.scopes ?? ['otp'])];
      const unknown = scopes.filter((s) => !isScope(s));
      if (unknown.length > 0) {
        throw invalidField(
          'scopes',
          `unknown scope ${unknown.join(', ')}; known scopes: ${SCOPES.join(', ')}`,
        );
      }
      const ttl = input.expiresInSeconds;
      if (ttl !== undefined && !(Number.isSafeInteger(ttl) && ttl > 0)) {
        throw invalidField('expires_in', 'must be a whole number of seconds greater than 0');
      }
      const mode = input.mode ?? 'live';
      if (!isMode(mode)) throw invalidField('mode', `must be one of ${MODES.join(', ')}`);
      await workspaces.requireWorkspace(input.workspaceId);
      const key = generateKey(mode);
      const now = clock.now();
      const row: repo.KeyRow = {
        id: newId('key'),
        workspace_id: input.workspaceId,
        name,
        key_hash: hashKey(key),
        prefix: displayPrefix(key),
        scopes: JSON.stringify(scopes as Scope[]),
        created_at: now,
        expires_at: ttl === undefined ? null : now + ttl * 1000,
        revoked_at: null,
        last_used_at: null,
        mode,
      };
      // Count and insert under the workspace's lock: concurrent creations cannot pass the limit together.
      await db.transaction().execute(async (tx) => {
        await repo.lockWorkspace(tx, input.workspaceId, now);
        if ((await repo.countActiveKeys(tx, input.workspaceId, now)) >= MAX_ACTIVE_KEYS) {
          throw new AppError(
            'key_limit_reached',
            `Workspace ${input.workspaceId} already has ${MAX_ACTIVE_KEYS} active keys, the most it may hold. Revoke one first.`,
          );
        }
        await repo.insertKey(tx, row);
        await audit.record(tx, by, {
          workspaceId: row.workspace_id,
          action: 'key.created',
          target: row.id,
          details: {
            name,
            prefix: row.prefix,
            scopes,
            mode,
            expires_at: stamp(row.expires_at),
          },
        });
      });
      return { ...presentKey(row, now), key };
    },

    /**
     * Scoped to the workspace: another workspace's key is not found, exactly like an unknown one. Revoking a key
     * revoked already changes nothing, and records nothing.
     */
    async revokeKey(workspaceId: string, id: string, by: Actor): Promise<KeyView> {
      const row = await db.transaction().execute(async (tx) => {
        const revoked = await repo.revokeKey(tx, workspaceId, id, clock.now());
        if (revoked) {
          await audit.record(tx, by, {
            workspaceId,
            action: 'key.revoked',
            target: id,
            details: { name: revoked.name, prefix: revoked.prefix },
          });
          return revoked;
        }
        return repo.findKey(tx, workspaceId, id);
      });
      if (!row) throw new AppError('not_found', 'There is no such API key in this workspace.');
      return presentKey(row, clock.now());
    },

    /** The workspace a key belongs to, for edges that name only the key (the operator's `key revoke`). */
    async workspaceOfKey(id: string): Promise<string> {
      const workspaceId = await repo.workspaceOfKey(db, id);
      if (workspaceId === undefined) throw new AppError('not_found', `No key ${id}.`);
      return workspaceId;
    },

    async listKeys(workspaceId: string): Promise<KeyView[]> {
      await workspaces.requireWorkspace(workspaceId);
      const now = clock.now();
      return (await repo.listKeys(db, workspaceId)).map((r) => presentKey(r, now));
    },

    /**
     * Resolves a presented key on every request (nothing is cached, so revocation is effective at once) and
     * counts the request in its workspace's window (`windowStart`) when the key is active and holds `scope`:
     * the principal, and the window's count (undefined when the key lacks the scope, so it was not counted).
     */
    async admit(
      key: string,
      scope: string | null,
      windowStart: number,
    ): Promise<{ principal: Principal; requestCount: number | undefined }> {
      if (!isWellFormedKey(key)) {
        throw new AppError(
          'malformed_api_key',
          `The API key is not in the expected shape (pv_live_… or pv_test_…).`,
        );
      }
      const now = clock.now();
      const row = await admit(db, { keyHash: hashKey(key), now, windowStart, scope });
      if (!row || keyStatus(row, now) !== 'active') throw invalidKey();
      // The row says whether last_used_at is due: most requests then write nothing (the statement re-checks).
      if (row.last_used_at === null || now - row.last_used_at > repo.LAST_USED_RESOLUTION_MS) {
        await repo.touchKey(db, { id: row.id, now, staleBefore: now - repo.LAST_USED_RESOLUTION_MS });
      }
      const principal: Principal = {
        keyId: row.id,
        keyName: row.name,
        workspaceId: row.workspace_id,
        scopes: JSON.parse(row.scopes) as string[],
        requestLimitPerMinute: row.request_limit_per_minute,
        mode: row.mode,
        workspace: {
          id: row.workspace_id,
          name: row.workspace_name,
          allowed_countries: row.allowed_countries,
          send_limit: row.send_limit,
          send_window_seconds: row.send_window_seconds,
          request_limit_per_minute: row.request_limit_per_minute,
          guess_limit: row.guess_limit,
          guess_window_seconds: row.guess_window_seconds,
          webhook_endpoints: Number(row.webhook_endpoints),
        },
      };
      return { principal, requestCount: row.request_count ?? undefined };
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
