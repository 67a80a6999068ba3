// A real app on a real database (SQLite file or PostgreSQL database, per TEST_STORE) belonging to a temporary
// directory, driven with app.inject() (no network).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { passwordHasher } from '../../src/accounts/password.js';
import { buildApp } from '../../src/app.js';
import { OPERATOR } from '../../src/audit/actor.js';
import type { Clock } from '../../src/clock.js';
import type { AnyCarrier } from '../../src/delivery/carriers/descriptor.js';
import {
  createServices,
  type DeliveryOptions,
  type Services,
  type WebhookOptions,
} from '../../src/services.js';
import { openStore, type Store } from '../../src/store/database.js';
import { databaseUrlFor, dropDatabase, ensureDatabase } from './database.js';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';
/** PUBLIC_URL of test services: carrier status callbacks are requested under it. */
export const TEST_PUBLIC_URL = 'http://127.0.0.1';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  /** The app's store, for tests that read or arrange tables directly (services never expose it). */
  store: Store;
  dir: string;
  databaseUrl: string;
  close(): Promise<void>;
}

export interface TestStoreHandle {
  store: Store;
  dir: string;
  databaseUrl: string;
  /** Closes the store; drops the database and the directory unless they were given (shared). */
  close(): Promise<void>;
}

/** A migrated store of its own, or the one belonging to a given directory (shared with other apps). */
export async function openTestStore(dir?: string, poolMax = 4): Promise<TestStoreHandle> {
  const own = dir === undefined;
  const where = dir ?? mkdtempSync(join(tmpdir(), 'pv-test-'));
  const databaseUrl = databaseUrlFor(where);
  await ensureDatabase(where);
  const store = await openStore({ url: databaseUrl, dataDir: where, poolMax });
  return {
    store,
    dir: where,
    databaseUrl,
    async close() {
      await store.close();
      if (own) {
        await dropDatabase(where);
        rmSync(where, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Sends in tests wait for their first hand-over however slow the machine (the deadline is tested on its own,
 * with a carrier that does not answer).
 */
const TEST_DELIVERY: DeliveryOptions = { waitMs: 60_000 };

/**
 * Dashboard passwords in test apps: scrypt as the service does it, at N=2^10 rather than 2^17 (128 KiB and about a
 * millisecond a hash instead of 128 MiB and half a second). The suite makes and signs in hundreds of accounts;
 * at the service's own cost those hashes were a sixth of its CPU. test/accounts/password.test.ts runs with the
 * service's default and proves it; CLI and serving processes never take this.
 */
const TEST_PASSWORDS = passwordHasher({ N: 2 ** 10, r: 8, p: 1 });

export async function createTestApp(
  options: {
    clock?: Clock;
    dir?: string;
    delivery?: DeliveryOptions;
    /** The carriers the app knows (default: the built-in ones). */
    carrierTypes?: readonly AnyCarrier[];
    /** AUDIT_RETENTION_DAYS (default: the service's). */
    auditRetentionDays?: number;
    /** METRICS_TOKEN: GET /metrics on the app (default: no such route). */
    metricsToken?: string;
    /** PUBLIC_URL (default: TEST_PUBLIC_URL, a loopback address). */
    publicUrl?: string;
    /** Webhook delivery (private destinations, timeout, resolver, jitter). */
    webhooks?: WebhookOptions;
    /** Hash passwords as the service does by default (OWASP's parameters), not at the suite's lower cost. */
    servicePasswordCost?: boolean;
    /** DATABASE_POOL_MAX: PostgreSQL connections (default 4; SQLite has one). */
    poolMax?: number;
  } = {},
): Promise<TestApp> {
  const handle = await openTestStore(options.dir, options.poolMax);
  const { store, dir, databaseUrl } = handle;
  const services = createServices({
    store,
    secret: TEST_SECRET,
    clock: options.clock,
    publicUrl: options.publicUrl ?? TEST_PUBLIC_URL,
    delivery: { ...TEST_DELIVERY, ...options.delivery },
    carrierTypes: options.carrierTypes,
    auditRetentionDays: options.auditRetentionDays,
    webhooks: options.webhooks,
    passwords: options.servicePasswordCost ? undefined : TEST_PASSWORDS,
  });
  const app = await buildApp({
    services,
    metrics: options.metricsToken === undefined ? undefined : { token: options.metricsToken },
  });
  await app.ready();
  return {
    app,
    services,
    store,
    dir,
    databaseUrl,
    async close() {
      await app.close();
      await services.dispatcher.drain();
      await services.webhookDelivery.drain();
      await services.carrierRuntime.close();
      await handle.close();
    },
  };
}

export interface SeededWorkspace {
  workspaceId: string;
  key: string;
  keyId: string;
}

/** A workspace with numbers (default: one AU mobile) and an `otp` key. */
export async function seedWorkspace(
  services: Services,
  options: {
    name?: string;
    numbers?: { number: string; type?: string }[];
    scopes?: string[];
    /** Keep the pumping guard's default range limit (10); else it is raised to its maximum. */
    pumpingGuard?: 'default';
  } = {},
): Promise<SeededWorkspace> {
  const ws = await services.workspaces.createWorkspace({ name: options.name ?? 'Acme' }, OPERATOR);
  // Suites of other rules send to many numbers of one range in minutes; the guard's own suites keep its default.
  if (options.pumpingGuard !== 'default')
    await services.fraud.setSettings(ws.id, { range_limit: 1000 }, OPERATOR);
  for (const n of options.numbers ?? [{ number: '+61491570156' }]) {
    await services.workspaces.addNumber({ workspaceId: ws.id, number: n.number, type: n.type }, OPERATOR);
  }
  const key = await services.keys.createKey(
    { workspaceId: ws.id, name: 'test key', scopes: options.scopes },
    OPERATOR,
  );
  return { workspaceId: ws.id, key: key.key, keyId: key.id };
}

/** A client for /v1 with one key. Bodies are objects (sent as JSON) or raw strings. */
export function client(app: FastifyInstance, key: string) {
  const headers = { authorization: `Bearer ${key}` };
  const post = (url: string, body?: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    ping: () => app.inject({ method: 'GET', url: '/v1/ping', headers }),
    send: (body: unknown) => post('/v1/otp/send', body),
    check: (body: unknown) => post('/v1/otp/check', body),
    get: (id: string) => app.inject({ method: 'GET', url: `/v1/otp/${id}`, headers }),
    cancel: (id: string) => post(`/v1/otp/${id}/cancel`),
  };
}

export type Client = ReturnType<typeof client>;

/** The code of the newest message to a number, read from the development outbox as a person would. */
export async function codeFor(services: Services, phone: string): Promise<string> {
  const [message] = await services.outbox.list({ to: phone, limit: 1 });
  if (!message) throw new Error(`no message to ${phone}`);
  const digits =
    message.channel === 'sms'
      ? (/(\d+)\s*$/.exec(message.body)?.[1] ?? '')
      : (/code is: ([\d, ]+)\./.exec(message.body)?.[1] ?? '').replace(/\D/g, '');
  if (!digits) throw new Error(`no code in ${message.body}`);
  return digits;
}

/** How many statements the app's store runs while `work` runs (its query observer). */
export async function statementsOf(t: TestApp, work: () => Promise<void>): Promise<number> {
  let statements = 0;
  t.store.observeQueries(() => {
    statements++;
  });
  try {
    await work();
  } finally {
    t.store.observeQueries(() => {});
  }
  return statements;
}

export function json<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return res.json() as T;
}
