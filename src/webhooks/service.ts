// Webhook endpoints of a workspace (docs/webhooks.md): add (the signing secret shown this once), list, remove,
// rotate the secret (the old one signs alongside for 24 hours), and the dashboard's attempts, test event and
// resend. Secrets are sealed at rest (deriveKey 'webhook-secrets', the endpoint id as additional data) and never
// logged or audited. Adding, removing and disabling keep the workspace's count of enabled endpoints in the same
// transaction, which is what tells every request path, with no extra read, whether to emit events.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type ResealTally, resealAll, seal } from '../sealing.js';
import type { KeyRing } from '../secret.js';
import type { Db } from '../store/database.js';
import type { WebhookEventType } from '../vocabulary/webhook-events.js';
import { type DestinationRules, validateWebhookUrl } from './destination.js';
import * as messages from './messages.js';
import * as repo from './repository.js';
import { MAX_ATTEMPTS } from './schedule.js';
import { newSigningSecret } from './signing.js';
import {
  type AttemptView,
  type EndpointView,
  parseEventTypes,
  presentAttempt,
  presentEndpoint,
} from './views.js';

export type { AttemptView, EndpointView } from './views.js';
export { parseEventTypes } from './views.js';

/** Enabled endpoints one workspace may have. */
export const MAX_ENDPOINTS = 20;
/** How long a rotated-out secret keeps signing. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;
/** Attempts the dashboard lists per endpoint. */
const ATTEMPTS_SHOWN = 50;

/** An id as given: printable ASCII of a sane length, else it cannot be one (never a NUL into a query). */
function checkId(id: string, what: string): void {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(id))
    throw new AppError('not_found', `No ${what} ${JSON.stringify(id.slice(0, 64))}.`);
}

export function createWebhookService(deps: {
  db: Db;
  clock: Clock;
  keys: KeyRing;
  audit: AuditRecorder;
  rules: DestinationRules;
  requireWorkspace: (id: string) => Promise<unknown>;
}) {
  const { db, clock, keys, audit } = deps;

  /** The endpoint, within the workspace when one is named (another's is answered like an unknown one). */
  async function requireEndpoint(id: string, workspaceId?: string): Promise<repo.EndpointRow> {
    checkId(id, 'webhook endpoint');
    const row = await repo.findEndpoint(db, id);
    if (!row || (workspaceId !== undefined && row.workspace_id !== workspaceId)) {
      throw new AppError('not_found', `No webhook endpoint ${id}.`);
    }
    return row;
  }

  /**
   * One more enabled endpoint in the workspace's count, within the limit. The count's update holds the workspace
   * row: two adds (or enables) cannot both pass the limit.
   */
  async function countOneMoreEnabled(tx: Db, workspaceId: string): Promise<void> {
    const count = await repo.addToEndpointCount(tx, workspaceId, 1);
    if (count === undefined) throw new AppError('not_found', `No workspace ${workspaceId}.`);
    if (count > MAX_ENDPOINTS) {
      throw new AppError(
        'conflict',
        `A workspace may have at most ${MAX_ENDPOINTS} enabled webhook endpoints: remove one first.`,
      );
    }
  }

  return {
    async addEndpoint(
      input: { workspaceId: string; url: unknown; events?: string | readonly string[] },
      by: Actor,
    ): Promise<{
      id: string;
      url: string;
      events: WebhookEventType[] | null;
      secret: string;
      created_at: string;
    }> {
      checkId(input.workspaceId, 'workspace');
      const url = validateWebhookUrl(input.url, deps.rules);
      const events = parseEventTypes(input.events);
      await deps.requireWorkspace(input.workspaceId);
      const now = clock.now();
      const id = newId('wh');
      const secret = newSigningSecret();
      const row: repo.EndpointRow = {
        id,
        workspace_id: input.workspaceId,
        url,
        events: events === undefined ? null : `,${events.join(',')},`,
        sealed_secret: seal(keys[0], id, secret),
        sealed_previous_secret: null,
        previous_until: null,
        failing_since: null,
        disabled_at: null,
        created_at: now,
      };
      await db.transaction().execute(async (tx) => {
        await countOneMoreEnabled(tx, input.workspaceId);
        await repo.insertEndpoint(tx, row);
        // The URL's origin and the event filter: a path or query could hold a token.
        await audit.record(tx, by, {
          workspaceId: input.workspaceId,
          action: 'webhook.added',
          target: id,
          details: { origin: new URL(url).origin, events: events ?? 'all' },
        });
      });
      const view = presentEndpoint(row);
      return { id: view.id, url: view.url, events: view.events, secret, created_at: view.created_at };
    },

    async listEndpoints(workspaceId: string): Promise<EndpointView[]> {
      checkId(workspaceId, 'workspace');
      await deps.requireWorkspace(workspaceId);
      return (await repo.listEndpoints(db, workspaceId)).map(presentEndpoint);
    },

    async getEndpoint(workspaceId: string, id: string): Promise<EndpointView> {
      return presentEndpoint(await requireEndpoint(id, workspaceId));
    },

    async removeEndpoint(id: string, by: Actor, workspaceId?: string): Promise<EndpointView> {
      await requireEndpoint(id, workspaceId);
      const removed = await db.transaction().execute(async (tx) => {
        const row = await repo.deleteEndpoint(tx, id);
        if (!row) return undefined;
        if (row.disabled_at === null) await repo.addToEndpointCount(tx, row.workspace_id, -1);
        await audit.record(tx, by, {
          workspaceId: row.workspace_id,
          action: 'webhook.removed',
          target: id,
          details: { origin: new URL(row.url).origin },
        });
        return row;
      });
      if (!removed) throw new AppError('not_found', `No webhook endpoint ${id}.`);
      return presentEndpoint(removed);
    },

    /**
     * Enables a disabled endpoint again (the system disables one after five days of failures): events are queued
     * for it from now on, under the same URL and secret; those of the disabled time were never queued. Counts
     * against the workspace's enabled endpoints. An endpoint already enabled is left as it is.
     */
    async enableEndpoint(id: string, by: Actor, workspaceId?: string): Promise<EndpointView> {
      await requireEndpoint(id, workspaceId);
      const enabled = await db.transaction().execute(async (tx) => {
        const row = await repo.enableEndpoint(tx, id);
        if (!row) return undefined;
        await countOneMoreEnabled(tx, row.workspace_id);
        await audit.record(tx, by, {
          workspaceId: row.workspace_id,
          action: 'webhook.enabled',
          target: id,
          details: { origin: new URL(row.url).origin },
        });
        return row;
      });
      return presentEndpoint(enabled ?? (await requireEndpoint(id, workspaceId)));
    },

    /** A new secret, shown this once; the one it replaces keeps signing for 24 hours. */
    async rotateSecret(
      id: string,
      by: Actor,
      workspaceId?: string,
    ): Promise<{ id: string; secret: string; previous_secret_expires_at: string }> {
      const current = await requireEndpoint(id, workspaceId);
      const secret = newSigningSecret();
      const previousUntil = clock.now() + PREVIOUS_SECRET_MS;
      const rotated = await db.transaction().execute(async (tx) => {
        const row = await repo.replaceSecret(tx, id, {
          sealed: seal(keys[0], id, secret),
          sealedPrevious: current.sealed_secret,
          previousUntil,
        });
        if (row) {
          await audit.record(tx, by, {
            workspaceId: row.workspace_id,
            action: 'webhook.secret_rotated',
            target: id,
          });
        }
        return row;
      });
      if (!rotated) throw new AppError('not_found', `No webhook endpoint ${id}.`);
      return { id, secret, previous_secret_expires_at: toTimestamp(previousUntil) };
    },

    /**
     * Every signing secret against the key ring; with `write`, those only the previous server secret opens are
     * sealed again under the current one (`secret reseal`). A rotation made meanwhile is never overwritten.
     */
    async resealSecrets(write: boolean): Promise<ResealTally> {
      const rows = await repo.listSealedSecrets(db);
      return resealAll(
        keys,
        rows,
        write ? (id, from, to) => repo.replaceSealedSecret(db, id, from, to) : undefined,
      );
    },

    /** The endpoint's newest attempts, newest first. */
    async listAttempts(workspaceId: string, endpointId: string): Promise<AttemptView[]> {
      await requireEndpoint(endpointId, workspaceId);
      return (await repo.listAttempts(db, endpointId, ATTEMPTS_SHOWN)).map(presentAttempt);
    },

    /** Queues a `webhook.test` event to this endpoint alone; its event id. */
    async sendTest(workspaceId: string, endpointId: string, by: Actor): Promise<{ event_id: string }> {
      const endpoint = await requireEndpoint(endpointId, workspaceId);
      if (endpoint.disabled_at !== null) throw new AppError('conflict', 'This endpoint is disabled.');
      const now = clock.now();
      const eventId = newId('msg');
      const body = JSON.stringify({
        type: 'webhook.test',
        timestamp: toTimestamp(now),
        data: { endpoint_id: endpointId, message: 'A test event from phone-verify.' },
      });
      await db.transaction().execute(async (tx) => {
        await messages.insertMessage(tx, {
          event_id: eventId,
          endpoint_id: endpointId,
          workspace_id: workspaceId,
          type: 'webhook.test',
          verification_id: null,
          body,
          state: 'pending',
          attempts: MAX_ATTEMPTS - 1,
          next_attempt_at: now,
          lease_until: 0,
          lease_token: null,
          created_at: now,
          settled_at: null,
        });
        await audit.record(tx, by, { workspaceId, action: 'webhook.test_sent', target: endpointId });
      });
      return { event_id: eventId };
    },

    /** Sends the event of one attempt again, now, with the same webhook-id and body (one attempt, no retries). */
    async resend(workspaceId: string, attemptId: string, by: Actor): Promise<{ event_id: string }> {
      checkId(attemptId, 'attempt');
      const attempt = await repo.findAttempt(db, attemptId);
      if (!attempt || attempt.workspace_id !== workspaceId)
        throw new AppError('not_found', `No attempt ${attemptId}.`);
      const endpoint = await requireEndpoint(attempt.endpoint_id, workspaceId);
      if (endpoint.disabled_at !== null) throw new AppError('conflict', 'This endpoint is disabled.');
      const requeued = await db.transaction().execute(async (tx) => {
        const row = await messages.requeue(tx, attempt, clock.now(), MAX_ATTEMPTS - 1);
        if (row)
          await audit.record(tx, by, { workspaceId, action: 'webhook.resent', target: attempt.event_id });
        return row;
      });
      if (!requeued) throw new AppError('not_found', `The event of attempt ${attemptId} is no longer kept.`);
      return { event_id: attempt.event_id };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
