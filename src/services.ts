// The composition root: builds every service from the store, the clock and the secret. The HTTP app, the CLI
// and the sweeper all take their services from here, so each rule lives in one place. The store itself stays
// here: an edge that needs data calls a service or a read-model of the feature that owns it.
import type { PasswordHasher } from './accounts/password.js';
import { type AccountService, createAccountService } from './accounts/service.js';
import { type AuditLog, createAuditLog } from './audit/log.js';
import { createAuditRecorder } from './audit/record.js';
import { type CarrierService, createCarrierService } from './carrier-accounts/service.js';
import { type Clock, systemClock } from './clock.js';
import {
  type Config,
  DEFAULT_AUDIT_RETENTION_DAYS,
  DEFAULT_CARRIER_TIMEOUT_MS,
  DEFAULT_DELIVERY_WAIT_MS,
  DEFAULT_RETENTION_DAYS,
} from './config.js';
import type { AnyCarrier } from './delivery/carriers/descriptor.js';
import { BUILT_IN_CARRIERS } from './delivery/carriers/index.js';
import { type CarrierRuntimes, createCarrierRuntimes } from './delivery/carriers/runtime.js';
import { createCredentialProbe } from './delivery/credential-probe.js';
import { createDevProvider, type DevProvider } from './delivery/dev-provider.js';
import { createDispatcher, type Dispatcher } from './delivery/dispatcher.js';
import { createOutbox, type Outbox } from './delivery/outbox.js';
import {
  type CarrierStatusReports,
  createCarrierStatusReports,
  createDeliveryReports,
} from './delivery/reports.js';
import { createProviderRouter } from './delivery/router.js';
import { createFraudService, type FraudService } from './fraud/service.js';
import type { Health } from './http/health.js';
import { createKeyService, type KeyService } from './keys/service.js';
import { createRequestLimiter, type RequestLimiter } from './limits/request-limit.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { deriveKeys, loadServerSecrets } from './secret.js';
import { createSecretRotation, type SecretRotation } from './secret-rotation.js';
import { createOverview, type Overview } from './stats/overview.js';
import { createRollups, type Rollups } from './stats/rollups.js';
import { openStore, type Store } from './store/database.js';
import { createRetention, type Retention } from './store/retention.js';
import { createStatistics, type Statistics } from './store/statistics.js';
import { createIdempotency, type Idempotency } from './verification/idempotency.js';
import { createVerificationLog, type VerificationLog } from './verification/log.js';
import { createPhoneDirectory, type PhoneDirectory } from './verification/phone-directory.js';
import { presentVerification } from './verification/present.js';
import { MAX_TTL_SECONDS } from './verification/schemas.js';
import { createVerificationService, type VerificationService } from './verification/service.js';
import { createWebhookDelivery, type WebhookDelivery } from './webhooks/delivery.js';
import { createEmitter } from './webhooks/emit.js';
import type { Resolve } from './webhooks/sender.js';
import { createWebhookService, type WebhookService } from './webhooks/service.js';
import { createWorkspaceService, type WorkspaceService } from './workspaces/service.js';
import { createTestNumbers, type TestNumbers } from './workspaces/test-numbers.js';

export interface Services {
  clock: Clock;
  /** Readiness: the database answers and every migration is applied. */
  health: Health;
  workspaces: WorkspaceService;
  /** A workspace's test numbers: fixed codes for test keys (docs/api.md, "Test numbers"). */
  testNumbers: TestNumbers;
  keys: KeyService;
  verifications: VerificationService;
  /** The pumping guard: range blocks, their settings and allow list. */
  fraud: FraudService;
  /** Idempotency-Key on sends: a key's first answer, kept 24 hours. */
  idempotency: Idempotency;
  /** The verifications log (the dashboard's list and phone search). */
  log: VerificationLog;
  /** The overview's numbers per workspace and period. */
  overview: Overview;
  /** The overview's hourly roll-ups, kept by the sweeper. */
  rollups: Rollups;
  /** The log's directory of numbers by their last digits, kept by the sweeper. */
  phoneDirectory: PhoneDirectory;
  /** PostgreSQL's table statistics, where its autovacuum does not keep them (kept by the sweeper). */
  statistics: Statistics;
  /** The development outbox: what the development provider "sent". */
  outbox: Outbox;
  /** Durable delivery: retries, fail-over and jobs left by a process that died. */
  dispatcher: Dispatcher;
  devProvider: DevProvider;
  requestLimiter: RequestLimiter;
  retention: Retention;
  accounts: AccountService;
  /** The audit trail as the dashboard and the CLI read it (the services that change things write it). */
  audit: AuditLog;
  carriers: CarrierService;
  /** The carriers this service knows (their descriptors): accounts, routes, forms and CLI options read them. */
  carrierTypes: readonly AnyCarrier[];
  /** What carriers keep per process (sessions opened by a first send); close() ends it (the process's end). */
  carrierRuntime: CarrierRuntimes;
  /** Carrier status callbacks applied to the verification they concern (the webhooks). */
  statusReports: CarrierStatusReports;
  /** The process's Prometheus metrics: what the routes and delivery count, served where the operator says. */
  metrics: Metrics;
  /** Changing the server secret: the start-up check and `secret reseal`. */
  secretRotation: SecretRotation;
  /** Webhook endpoints of a workspace: add, list, remove, rotate, attempts, test, resend. */
  webhooks: WebhookService;
  /** Signed, durable delivery of webhook events (polled by the serving process). */
  webhookDelivery: WebhookDelivery;
  /** What could not be made private on disk (files or folders the process does not own): each edge logs them. */
  startupWarnings: readonly string[];
  /** Where the server secret comes from (PHONE_VERIFY_SECRET or the file's path), and whether it was made now. */
  secret: { source: string; generated: boolean };
  /** PUBLIC_URL: where carriers and browsers reach the service. One source for callbacks, cookies and docs. */
  publicUrl: string;
  /**
   * The commit of writes not yet durable (SQLite commits a turn's writes together), or undefined. Every edge
   * awaits it before telling anyone what happened: an HTTP answer, a CLI's output.
   */
  committed(): Promise<void> | undefined;
}

export interface DeliveryOptions {
  /** How long a send waits for its first hand-over (DELIVERY_WAIT_MS). */
  waitMs?: number;
  /** How long one request to a carrier may take (CARRIER_TIMEOUT_MS). */
  carrierTimeoutMs?: number;
  /** The deadline of a credential test (default PROBE_TIMEOUT_MS, 10 s); tests shorten it. */
  probeTimeoutMs?: number;
  /** Jitter source of retry delays; tests pin it. */
  random?: () => number;
  /** Where background delivery work (dispatcher, carrier sessions) reports: the serving process's log. */
  log?: DeliveryLog;
}

export interface WebhookOptions {
  /** NODE_ENV=production: only https:// endpoints. */
  production?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE=true: loopback and private destinations allowed. */
  allowPrivate?: boolean;
  /** How long one POST may take (default 10 s; tests shorten it). */
  timeoutMs?: number;
  /** Host resolution (tests answer with chosen addresses); default: the system's resolver. */
  resolve?: Resolve;
  /** Jitter source of retry delays; tests pin it. */
  random?: () => number;
}

export interface DeliveryLog {
  info(message: string): void;
  warn(message: string, err?: unknown): void;
}

export function createServices(deps: {
  store: Store;
  secret?: string;
  /** PHONE_VERIFY_PREVIOUS_SECRET: the secret being replaced, still accepted for opening and checking. */
  previousSecret?: string;
  clock?: Clock;
  retentionDays?: number;
  /** Days audit entries are kept (AUDIT_RETENTION_DAYS). */
  auditRetentionDays?: number;
  /** Where carriers reach the service (PUBLIC_URL): status callbacks are requested under it. */
  publicUrl: string;
  delivery?: DeliveryOptions;
  /** The carriers accounts may be of (default: the built-in ones; a test may add its own). */
  carrierTypes?: readonly AnyCarrier[];
  webhooks?: WebhookOptions;
  /** How dashboard passwords are hashed (default: OWASP's scrypt parameters; the test suite lowers them). */
  passwords?: PasswordHasher;
}): Services {
  const { store } = deps;
  const clock = deps.clock ?? systemClock;
  const startupWarnings = [...store.warnings];
  const secrets = loadServerSecrets({
    secret: deps.secret,
    previousSecret: deps.previousSecret,
    dataDir: store.dataDir,
    warnings: startupWarnings,
  });
  const db = store.db;
  const metrics = createMetrics({ store: store.dialect });
  // Written by each service that changes something, in the transaction of the change.
  const audit = createAuditRecorder({ clock });
  // Webhook events, emitted in the transaction of each state change they report.
  const emit = createEmitter({ clock, present: presentVerification });
  const webhookKeys = deriveKeys(secrets, 'webhook-secrets');
  const workspaces = createWorkspaceService({ db, clock, audit });
  const keys = createKeyService({ db, clock, workspaces, audit });
  const devProvider = createDevProvider({ db, clock, reports: createDeliveryReports({ db, clock, emit }) });
  const carrierTypes = deps.carrierTypes ?? BUILT_IN_CARRIERS;
  const carrierTimeoutMs = deps.delivery?.carrierTimeoutMs ?? DEFAULT_CARRIER_TIMEOUT_MS;
  const statusReports = createCarrierStatusReports({ db, clock, emit });
  const carrierRuntime = createCarrierRuntimes(carrierTypes, {
    timeoutMs: carrierTimeoutMs,
    log: deps.delivery?.log,
    report: (input) => statusReports.apply(input),
  });
  const carriers = createCarrierService({
    db,
    clock,
    keys: deriveKeys(secrets, 'credentials'),
    workspaces,
    carrierTypes,
    runtime: carrierRuntime,
    audit,
    probe: createCredentialProbe({
      carrierTypes,
      runtimes: carrierRuntime,
      timeoutMs: deps.delivery?.probeTimeoutMs,
    }),
  });
  const providers = createProviderRouter({
    carriers,
    devProvider,
    publicUrl: deps.publicUrl,
    timeoutMs: carrierTimeoutMs,
    carrierTypes,
    runtimes: carrierRuntime,
  });
  const dispatcher = createDispatcher({
    store,
    clock,
    providers,
    jobKeys: deriveKeys(secrets, 'delivery-jobs'),
    carrierTimeoutMs,
    random: deps.delivery?.random,
    warn: deps.delivery?.log?.warn,
    carrierTypes,
    metrics,
    emit,
  });
  const retentionDays = deps.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const maxCodeLifetimeMs = MAX_TTL_SECONDS * 1000;
  const fraud = createFraudService({
    db,
    reader: store.reader,
    clock,
    workspaces,
    audit,
    retentionDays,
    maxCodeLifetimeMs,
  });
  const verifications = createVerificationService({
    db,
    clock,
    codeKeys: deriveKeys(secrets, 'code-hash'),
    dispatcher,
    deliveryWaitMs: deps.delivery?.waitMs ?? DEFAULT_DELIVERY_WAIT_MS,
    carrierTypes,
    fraud,
    metrics,
    emit,
  });
  const requestLimiter = createRequestLimiter({ clock });
  const retention = createRetention({
    store,
    clock,
    retentionDays,
    auditRetentionDays: deps.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS,
  });
  const accounts = createAccountService({ db, clock, workspaces, audit, passwords: deps.passwords });
  const webhooks = createWebhookService({
    db,
    clock,
    keys: webhookKeys,
    audit,
    rules: {
      production: deps.webhooks?.production ?? false,
      allowPrivate: deps.webhooks?.allowPrivate ?? false,
    },
    requireWorkspace: workspaces.requireWorkspace,
  });
  return {
    clock,
    health: {
      async check() {
        await store.checkReady();
        return { database: store.dialect };
      },
    },
    workspaces,
    testNumbers: createTestNumbers({ db, clock, audit, requireWorkspace: workspaces.requireWorkspace }),
    keys,
    verifications,
    fraud,
    idempotency: createIdempotency({ db, clock, committed: store.committed }),
    // Heavy reads: on SQLite they run on the reader thread, never holding the API's requests.
    log: createVerificationLog({ db: store.reader, clock }),
    overview: createOverview({ db: store.reader, clock }),
    // Background work: each reads on the reader, then writes one short transaction per step.
    rollups: createRollups({ db, reader: store.reader, clock, maxCodeLifetimeMs }),
    phoneDirectory: createPhoneDirectory({ db, reader: store.reader, clock }),
    statistics: createStatistics(db),
    outbox: createOutbox({ db }),
    dispatcher,
    devProvider,
    requestLimiter,
    retention,
    accounts,
    audit: createAuditLog({ db, requireWorkspace: workspaces.requireWorkspace }),
    carriers,
    carrierTypes,
    carrierRuntime,
    statusReports,
    secretRotation: createSecretRotation({ secrets, carriers, dispatcher, webhooks }),
    webhooks,
    webhookDelivery: createWebhookDelivery({
      store,
      clock,
      keys: webhookKeys,
      audit,
      allowPrivate: deps.webhooks?.allowPrivate ?? false,
      production: deps.webhooks?.production ?? false,
      timeoutMs: deps.webhooks?.timeoutMs,
      resolve: deps.webhooks?.resolve,
      random: deps.webhooks?.random,
      warn: deps.delivery?.log?.warn,
      metrics,
    }),
    metrics,
    startupWarnings,
    secret: { source: secrets.source, generated: secrets.generated === true },
    publicUrl: deps.publicUrl,
    committed: store.committed,
  };
}

/** The store named by the configuration and the services over it, for a one-shot process (a CLI command). */
export async function openServices(
  config: Config,
  carrierTypes?: readonly AnyCarrier[],
): Promise<{ services: Services; close(): Promise<void> }> {
  const store = await openStore(config.database);
  try {
    const services = createServices({
      store,
      secret: config.secret,
      previousSecret: config.previousSecret,
      publicUrl: config.publicUrl,
      carrierTypes,
      webhooks: { production: config.production, allowPrivate: config.webhooks.allowPrivate },
    });
    return { services, close: () => store.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}
