// Durable webhook delivery. Every message was committed with the state change it reports (emit.ts); this
// claims the due ones (messages.ts, one statement, so several processes never make one attempt twice), signs
// and posts each (signing.ts, sender.ts), and records the attempt with its outcome in one transaction:
// delivered on any 2xx, else retried on the Standard Webhooks schedule (schedule.ts) until it has failed. An
// endpoint whose attempts have failed for five days in a row is disabled (its waiting messages fail with it).
import { SYSTEM } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { createClaimedWork } from '../claimed-work.js';
import type { Clock } from '../clock.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '../config.js';
import { newId } from '../ids.js';
import type { Metrics } from '../metrics/metrics.js';
import { unsealWithAny } from '../sealing.js';
import type { KeyRing } from '../secret.js';
import type { Store } from '../store/database.js';
import * as messages from './messages.js';
import * as repo from './repository.js';
import { DISABLE_AFTER_MS, retryDelayMs } from './schedule.js';
import { type PostResult, postWebhook, type Resolve, systemResolve } from './sender.js';
import { signatureHeaders } from './signing.js';

const CLAIM_BATCH = 20;
const MAX_IN_FLIGHT = 50;

export interface WebhookDeliveryDeps {
  store: Store;
  clock: Clock;
  /** deriveKeys(secrets, 'webhook-secrets'): opens the endpoints' signing secrets. */
  keys: KeyRing;
  audit: AuditRecorder;
  allowPrivate: boolean;
  /** NODE_ENV=production: only https:// endpoints are sent to (one added before the switch is refused). */
  production?: boolean;
  timeoutMs?: number;
  resolve?: Resolve;
  random?: () => number;
  warn?: (message: string, err?: unknown) => void;
  /** Each attempt's result and time, and endpoints disabled (the process's metrics). */
  metrics: Pick<Metrics, 'webhookAttempt' | 'webhookDisabled'>;
}

/** The secrets that sign now: the current one, and the one it replaced during its 24 hours of grace. */
export function signingSecrets(keys: KeyRing, endpoint: repo.EndpointRow, now: number): string[] | undefined {
  const current = unsealWithAny(keys, endpoint.id, endpoint.sealed_secret)?.plain;
  if (current === undefined) return undefined;
  const previous =
    endpoint.sealed_previous_secret !== null && (endpoint.previous_until ?? 0) > now
      ? unsealWithAny(keys, endpoint.id, endpoint.sealed_previous_secret)?.plain
      : undefined;
  return previous === undefined ? [current] : [current, previous];
}

export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { store, clock, keys, audit } = deps;
  const { db } = store;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  // Longer than one POST can take: no other process starts the same attempt while this one may still succeed.
  const leaseMs = timeoutMs * 2 + 1000;
  const random = deps.random ?? Math.random;
  const resolve = deps.resolve ?? systemResolve;
  const warn =
    deps.warn ??
    ((message: string, err?: unknown) => process.emitWarning(`webhooks: ${message} (${String(err ?? '')})`));
  async function post(message: messages.MessageRow, endpoint: repo.EndpointRow): Promise<PostResult> {
    if (deps.production && !endpoint.url.startsWith('https://')) {
      return { error: 'refused: NODE_ENV=production sends to https:// endpoints only' };
    }
    const secrets = signingSecrets(keys, endpoint, clock.now());
    if (!secrets) return { error: "the signing secret cannot be opened with this server's secret" };
    const headers = signatureHeaders(secrets, message.event_id, clock.now(), message.body);
    return postWebhook(endpoint.url, headers, message.body, {
      timeoutMs,
      allowPrivate: deps.allowPrivate,
      resolve,
    });
  }

  /** One attempt of a message this process holds by `token`. */
  async function attempt(message: messages.MessageRow, token: string): Promise<void> {
    const endpoint = await repo.findEndpoint(db, message.endpoint_id);
    if (!endpoint || endpoint.disabled_at !== null) {
      await messages.updateHeld(db, message, token, {
        state: 'failed',
        attempts: message.attempts,
        settledAt: clock.now(),
      });
      return;
    }
    const started = performance.now();
    const result = await post(message, endpoint);
    const elapsed = performance.now() - started;
    deps.metrics.webhookAttempt(result.status, elapsed / 1000);
    const latency = Math.round(elapsed);
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const attempts = message.attempts + 1;
    await db.transaction().execute(async (tx) => {
      const now = clock.now();
      await tx
        .insertInto('webhook_attempts')
        .values({
          id: newId('att'),
          workspace_id: message.workspace_id,
          endpoint_id: message.endpoint_id,
          event_id: message.event_id,
          type: message.type,
          at: now,
          status: result.status ?? null,
          latency_ms: latency,
          error: result.error ?? null,
          excerpt: result.excerpt ?? null,
        })
        .execute();
      if (ok) {
        await messages.updateHeld(tx, message, token, { state: 'delivered', attempts, settledAt: now });
        await repo.clearFailing(tx, endpoint.id);
        return;
      }
      const delay = retryDelayMs(attempts, random);
      await messages.updateHeld(
        tx,
        message,
        token,
        delay === undefined
          ? { state: 'failed', attempts, settledAt: now }
          : { state: 'pending', attempts, nextAttemptAt: now + delay },
      );
      const since = await repo.markFailing(tx, endpoint.id, now);
      if (since !== undefined && now - since >= DISABLE_AFTER_MS) await disable(tx, endpoint.id, now);
    });
  }

  async function disable(tx: typeof db, endpointId: string, now: number): Promise<void> {
    const disabled = await repo.disableEndpoint(tx, endpointId, now);
    if (!disabled) return;
    deps.metrics.webhookDisabled();
    await repo.addToEndpointCount(tx, disabled.workspace_id, -1);
    await messages.failPending(tx, endpointId, now);
    await audit.record(tx, SYSTEM, {
      workspaceId: disabled.workspace_id,
      action: 'webhook.disabled',
      target: endpointId,
      details: { failing_since: disabled.failing_since },
    });
  }

  // Claimed by one statement each: several processes share the messages, each attempt made once.
  const work = createClaimedWork({
    anyDue: () => messages.anyDue(db, clock.now()),
    claim: (token, limit) => messages.claimDue(store, { now: clock.now(), leaseMs, token, limit }),
    attempt: (message: messages.MessageRow, token) => attempt(message, token),
    batch: CLAIM_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
    warn,
    what: 'webhook attempt',
  });

  return {
    /** Claims the due messages nobody holds and attempts them; how many it claimed. */
    runDue: work.runDue,
    /** Polls every `intervalMs`; the returned stop waits for the attempts under way. */
    startPolling: work.startPolling,
    drain: work.drain,
  };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
