// Idempotency-Key on sends (docs/api.md, "Idempotent sends"; the IETF httpapi Idempotency-Key draft with
// Stripe's semantics). A key is taken before its send runs and then holds that send's answer for 24 hours: the
// same key with the same request replays the answer and sends nothing; with another request it is refused. The
// rows live in the database, so a key holds across restarts and across every process that shares it.
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newToken } from '../ids.js';
import type { Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { Mode } from '../vocabulary/modes.js';

/** How long a key is remembered, from the request that took it. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/**
 * How long a request holds its key before a retry may take it over. A process that dies mid-send leaves its key in
 * flight; this is how long until the key is free again. Twice the longest wait for a first hand-over
 * (DELIVERY_WAIT_MS is at most 60 s), so a send that is merely slow is never run twice.
 */
export const IDEMPOTENCY_LEASE_MS = 120_000;

/** A key taken by one request: only it stores the answer or releases the key. */
export interface Claim {
  workspaceId: string;
  key: string;
  token: string;
}

/** The first answer given under a key, to be sent again as it was. */
export interface StoredAnswer {
  status: number;
  body: string;
}

export type Begun = { claim: Claim } | { replay: StoredAnswer };

/**
 * The key as stored: a test key's sends keep their keys apart from the live ones (a test request must never
 * replay a live answer, nor the reverse). A header's key never begins with a space (IDEMPOTENCY_KEY_PATTERN), so
 * no live key can take the form of a test one.
 */
export function storedKey(key: string, mode: Mode): string {
  return mode === 'live' ? key : ` test ${key}`;
}

// Of any set of requests with one key, at most one gets a row back: the first insert, or the takeover of a key
// whose holder's lease ran out or whose 24 hours are over, is one atomic statement.
const takeKey = prepared(
  (
    db,
    p: {
      workspaceId: string;
      key: string;
      hash: string;
      token: string;
      now: number;
      leaseUntil: number;
      expiresAt: number;
    },
  ) =>
    db
      .insertInto('idempotency_keys')
      .values({
        workspace_id: p.workspaceId,
        key: p.key,
        request_hash: p.hash,
        state: 'in_flight',
        lease_token: p.token,
        lease_until: p.leaseUntil,
        response_status: null,
        response_body: null,
        created_at: p.now,
        expires_at: p.expiresAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'key'])
          .doUpdateSet((eb) => ({
            request_hash: eb.ref('excluded.request_hash'),
            state: eb.ref('excluded.state'),
            lease_token: eb.ref('excluded.lease_token'),
            lease_until: eb.ref('excluded.lease_until'),
            response_status: null,
            response_body: null,
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
          }))
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.expires_at', '<=', p.now),
              eb.and([
                eb('idempotency_keys.state', '=', 'in_flight'),
                eb('idempotency_keys.lease_until', '<=', p.now),
              ]),
            ]),
          ),
      )
      .returning('lease_token'),
);

const findKey = prepared((db, p: { workspaceId: string; key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'state', 'lease_until', 'expires_at', 'response_status', 'response_body'])
    .where('workspace_id', '=', p.workspaceId)
    .where('key', '=', p.key),
);

// Only the holder writes: a request whose lease ran out and was taken over stores nothing over its successor.
const storeAnswer = prepared(
  (db, p: { workspaceId: string; key: string; token: string; status: number; body: string }) =>
    db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: p.status, response_body: p.body })
      .where('workspace_id', '=', p.workspaceId)
      .where('key', '=', p.key)
      .where('lease_token', '=', p.token),
);

const releaseKey = prepared((db, p: { workspaceId: string; key: string; token: string }) =>
  db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', p.workspaceId)
    .where('key', '=', p.key)
    .where('lease_token', '=', p.token),
);

/**
 * Whether an answer is kept and replayed: a success, and a refusal that a retry would meet again (invalid phone,
 * a number type never served, channel unavailable). Never a 429 nor any answer with Retry-After (they say
 * "later", so the retry must run the send: a range blocked by the pumping guard is one) nor a 5xx (nothing final
 * happened).
 */
export function isFinalAnswer(status: number, saysLater = false): boolean {
  return status < 500 && status !== 429 && !saysLater;
}

/** Three tries: a key released or expired between the take and the read is simply taken again. */
const TRIES = 3;

export function createIdempotency(deps: {
  db: Db;
  clock: Clock;
  /** The commit of writes not yet durable (SQLite's group commit), awaited before an answer leaves. */
  committed: () => Promise<void> | undefined;
}) {
  const { db, clock } = deps;

  function inUse(): AppError {
    return new AppError(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed. Retry after it has finished.',
      { retry_after: 1 },
    );
  }

  return {
    /**
     * Takes `key` for a request whose fingerprint is `requestHash`, or answers from what the key holds: the stored
     * answer (same request), 422 idempotency_key_reused (another request), 409 idempotency_key_in_use (its first
     * request is still running).
     */
    async begin(
      workspaceId: string,
      given: string,
      requestHash: string,
      mode: Mode = 'live',
    ): Promise<Begun> {
      const key = storedKey(given, mode);
      for (let i = 0; i < TRIES; i++) {
        const now = clock.now();
        const token = newToken();
        const taken = await takeKey(db, {
          workspaceId,
          key,
          hash: requestHash,
          token,
          now,
          leaseUntil: now + IDEMPOTENCY_LEASE_MS,
          expiresAt: now + IDEMPOTENCY_KEY_TTL_MS,
        });
        if (taken.rows.length > 0) return { claim: { workspaceId, key, token } };
        const held = (await findKey(db, { workspaceId, key })).rows[0];
        if (!held || held.expires_at <= now) continue;
        if (held.request_hash !== requestHash) {
          throw new AppError(
            'idempotency_key_reused',
            'This Idempotency-Key was used in the last 24 hours with a different request. Use a new key for a new request.',
          );
        }
        if (held.state === 'done' && held.response_status !== null && held.response_body !== null) {
          return { replay: { status: held.response_status, body: held.response_body } };
        }
        if (held.lease_until > now) throw inUse();
      }
      throw inUse();
    },

    /** Stores the answer of a claimed request if it is final, else frees the key for a retry; durable on return. */
    async finish(claim: Claim, status: number, body: string | undefined, saysLater = false): Promise<void> {
      const { workspaceId, key, token } = claim;
      if (body !== undefined && isFinalAnswer(status, saysLater)) {
        await storeAnswer(db, { workspaceId, key, token, status, body });
      } else {
        await releaseKey(db, { workspaceId, key, token });
      }
      // The key's new state is durable before the answer leaves: a retry never finds it in flight for nothing.
      await deps.committed();
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
