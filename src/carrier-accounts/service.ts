// Carrier accounts of a workspace: credentials validated per carrier (its descriptor's fields) and kept
// encrypted. Lists never carry a secret; getAccount (decrypted) is for the router and the webhook routes alone.
// Removing an account also lets go of what the carriers' runtimes hold for it in this process. Adding, rotating
// and removing an account, and moving a number to another, are written to the audit trail with the change: the
// account's type and API origin, never a credential.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type ResealTally, resealAll } from '../sealing.js';
import type { KeyRing } from '../secret.js';
import type { Db } from '../store/database.js';
import { type NumberView, presentNumber, type WorkspaceService } from '../workspaces/service.js';
import {
  type AccountKind,
  type CarrierAccount,
  type CarrierType,
  carrierOfType,
  validateBaseUrl,
  validateCredentials,
} from './account-types.js';
import type { CredentialProbe, CredentialTestView } from './credential-test.js';
import { decryptCredentials, encryptCredentials } from './credentials.js';
import * as repo from './repository.js';
import { runCredentialTest } from './test-credentials.js';

export * from './account-types.js';
export * from './credential-test.js';

export interface CarrierAccountView {
  id: string;
  type: CarrierType;
  created_at: string;
}

/** An account as lists show it: what the operator needs to recognise and set it up, never a credential. */
export interface CarrierAccountListing extends CarrierAccountView {
  /** null: the carrier's own API. */
  base_url: string | null;
  /** The workspace numbers that send through it (E.164), oldest first. */
  numbers: string[];
}

function present(row: repo.CarrierAccountRow): CarrierAccountView {
  return { id: row.id, type: row.type, created_at: toTimestamp(row.created_at) };
}

function presentListing(row: repo.CarrierAccountRow, numbers: string[]): CarrierAccountListing {
  return { ...present(row), base_url: row.base_url, numbers };
}

/** Another workspace's account is answered like an unknown one. */
const noAccount = (workspaceId: string, id: string) =>
  new AppError('not_found', `No carrier account ${id} in workspace ${workspaceId}.`);

/**
 * A base URL as the audit trail keeps it: its origin only (scheme, host, port), since a path or query could hold
 * a token; null for the carrier's own API.
 */
function originOf(baseUrl: string | null): string | null {
  return baseUrl === null ? null : new URL(baseUrl).origin;
}

export function createCarrierService(deps: {
  db: Db;
  clock: Clock;
  /** deriveKeys(secrets, 'credentials'): the current key seals; the previous one, while set, still opens. */
  keys: KeyRing;
  workspaces: WorkspaceService;
  /** The carriers accounts may be of. */
  carrierTypes: readonly AccountKind[];
  /** What the process holds per account (a carrier's sessions): let go of when the account is removed. */
  runtime?: { release(accountId: string): Promise<void> };
  audit: AuditRecorder;
  /** Runs the harmless call of an account's carrier ("test credentials"); without it, no account can be tested. */
  probe?: CredentialProbe;
}) {
  const { db, clock, workspaces, carrierTypes, keys, audit } = deps;

  return {
    async addAccount(
      input: {
        workspaceId: string;
        type: string;
        credentials: Record<string, unknown>;
        baseUrl?: string;
      },
      by: Actor,
    ): Promise<CarrierAccountView> {
      await workspaces.requireWorkspace(input.workspaceId);
      const carrier = carrierOfType(carrierTypes, input.type);
      const type = carrier.type;
      const credentials = validateCredentials(carrier, input.credentials);
      const id = newId('car');
      const row: repo.CarrierAccountRow = {
        id,
        workspace_id: input.workspaceId,
        type,
        credentials: encryptCredentials(keys, id, credentials),
        base_url: validateBaseUrl(input.baseUrl),
        created_at: clock.now(),
      };
      await db.transaction().execute(async (tx) => {
        await repo.insertAccount(tx, row);
        await audit.record(tx, by, {
          workspaceId: row.workspace_id,
          action: 'carrier.added',
          target: id,
          details: { type, base_url: originOf(row.base_url) },
        });
      });
      return present(row);
    },

    async listAccounts(workspaceId: string): Promise<CarrierAccountListing[]> {
      await workspaces.requireWorkspace(workspaceId);
      const tied = await repo.tiedNumbers(db, workspaceId);
      return (await repo.listAccounts(db, workspaceId)).map((row) =>
        presentListing(
          row,
          tied.filter((n) => n.carrier_id === row.id).map((n) => n.number),
        ),
      );
    },

    /** The workspace an account belongs to (the CLI names accounts by id alone). */
    async workspaceOfAccount(id: string): Promise<string> {
      const row = await repo.findAccount(db, id);
      if (!row) throw new AppError('not_found', `No carrier account ${id}.`);
      return row.workspace_id;
    },

    /** Deletes an account no number sends through; while some do, refuses (409) and names them. */
    async removeAccount(workspaceId: string, id: string, by: Actor): Promise<CarrierAccountListing> {
      const removed = await db.transaction().execute(async (tx) => {
        // Under the account's lock: a number being tied to it at the same moment is either seen here, or
        // finds the account gone.
        const row = await repo.lockAccount(tx, workspaceId, id);
        if (!row) throw noAccount(workspaceId, id);
        const numbers = (await repo.tiedNumbers(tx, workspaceId))
          .filter((n) => n.carrier_id === id)
          .map((n) => n.number);
        if (numbers.length > 0) {
          throw new AppError(
            'conflict',
            `Carrier account ${id} still sends from ${numbers.join(', ')}: move ${numbers.length === 1 ? 'that number' : 'those numbers'} to another account or to the development provider first.`,
          );
        }
        await repo.deleteAccount(tx, workspaceId, id);
        await audit.record(tx, by, {
          workspaceId,
          action: 'carrier.removed',
          target: id,
          details: { type: row.type },
        });
        return presentListing(row, []);
      });
      // Its session (if any) is unbound at once here; other processes' sweepers let theirs go.
      await deps.runtime?.release(id);
      return removed;
    },

    /** The ids of every account of one type, in any workspace (for what a process holds per account). */
    accountIdsOfType(type: string): Promise<Set<string>> {
      return repo.accountIdsOfType(db, type);
    },

    /**
     * Replaces the credentials (validated for the account's type, which never changes) and, when `baseUrl` is
     * given, the base URL ('' or null: the carrier's own API). The router builds adapters per send from the
     * stored account, so the next send uses them.
     */
    async rotateCredentials(
      workspaceId: string,
      id: string,
      change: { credentials: Record<string, unknown>; baseUrl?: string | null },
      by: Actor,
    ): Promise<CarrierAccountListing> {
      const found = await repo.findAccount(db, id);
      if (!found || found.workspace_id !== workspaceId) throw noAccount(workspaceId, id);
      const { baseUrl } = change;
      const changes: Partial<repo.CarrierAccountRow> = {
        credentials: encryptCredentials(
          keys,
          id,
          validateCredentials(carrierOfType(carrierTypes, found.type), change.credentials),
        ),
      };
      if (baseUrl !== undefined) {
        changes.base_url = baseUrl === null || baseUrl.trim() === '' ? null : validateBaseUrl(baseUrl);
      }
      return db.transaction().execute(async (tx) => {
        // Under the account's lock: the base URL recorded as replaced is the one that was.
        const row = await repo.lockAccount(tx, workspaceId, id);
        if (!row) throw noAccount(workspaceId, id);
        await repo.updateAccount(tx, workspaceId, id, changes);
        const baseUrlChanged = changes.base_url !== undefined && changes.base_url !== row.base_url;
        await audit.record(tx, by, {
          workspaceId,
          action: 'carrier.rotated',
          target: id,
          details: {
            type: row.type,
            ...(baseUrlChanged && {
              base_url: { from: originOf(row.base_url), to: originOf(changes.base_url ?? null) },
            }),
          },
        });
        const numbers = (await repo.tiedNumbers(tx, workspaceId))
          .filter((n) => n.carrier_id === id)
          .map((n) => n.number);
        return presentListing({ ...row, ...changes }, numbers);
      });
    },

    /**
     * Runs the harmless call of the account's carrier with its stored credentials (docs/carriers.md, "Testing
     * credentials") and records who tested which account and the outcome, never a credential. Another
     * workspace's account is answered like an unknown one.
     */
    testCredentials(workspaceId: string, id: string, by: Actor): Promise<CredentialTestView> {
      return runCredentialTest({ db, clock, keys, audit, probe: deps.probe }, workspaceId, id, by);
    },

    /** Ties a number to an account of its own workspace, or (null) back to the development provider. */
    async setNumberCarrier(
      workspaceId: string,
      numberId: string,
      carrierId: string | null,
      by: Actor,
    ): Promise<NumberView> {
      return db.transaction().execute(async (tx) => {
        // The account's lock: removeAccount cannot delete it between this check and the update.
        if (carrierId !== null && !(await repo.lockAccount(tx, workspaceId, carrierId))) {
          throw noAccount(workspaceId, carrierId);
        }
        // The number's lock: the account it is moved from is the one it sent through.
        const before = await repo.lockNumber(tx, workspaceId, numberId);
        if (!before) throw new AppError('not_found', `No number ${numberId} in this workspace.`);
        if (before.carrier_id === carrierId) return presentNumber(before);
        const number = await repo.setNumberCarrier(tx, workspaceId, numberId, carrierId);
        if (!number) throw new AppError('not_found', `No number ${numberId} in this workspace.`);
        await audit.record(tx, by, {
          workspaceId,
          action: 'number.carrier_changed',
          target: numberId,
          details: { number: number.number, from: before.carrier_id, to: carrierId },
        });
        return presentNumber(number);
      });
    },

    /**
     * Every account's credentials against the key ring (any workspace); with `write`, those only the previous
     * secret opens are sealed again under the current one. A rotation made meanwhile is never overwritten.
     */
    async resealCredentials(write: boolean): Promise<ResealTally> {
      const rows = await repo.listSealedCredentials(db);
      return resealAll(
        keys,
        rows,
        write ? (id, from, to) => repo.replaceCredentials(db, id, from, to) : undefined,
      );
    },

    /**
     * The account with its credentials decrypted; undefined when there is no such account. Throws
     * CredentialsUnreadableError when the stored credentials do not open (another secret, altered).
     */
    async getAccount(id: string): Promise<CarrierAccount | undefined> {
      const row = await repo.findAccount(db, id);
      if (!row) return undefined;
      // Authenticated encryption: what opens is what addAccount validated for this type.
      return {
        id: row.id,
        workspaceId: row.workspace_id,
        type: row.type,
        credentials: decryptCredentials(keys, row.id, row.credentials),
        baseUrl: row.base_url ?? undefined,
      } as CarrierAccount;
    },
  };
}

export type CarrierService = ReturnType<typeof createCarrierService>;
