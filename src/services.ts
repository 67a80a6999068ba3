// The composition root: builds every service from the store, the clock and the secret. The HTTP app, the CLI
// and the sweeper all take their services from here, so each rule lives in one place. The store itself stays
// here: an edge that needs data calls a service or a read-model of the feature that owns it.
import { type AccountService, createAccountService } from './accounts/service.js';
import { type CarrierService, createCarrierService } from './carrier-accounts/service.js';
import { type Clock, systemClock } from './clock.js';
import {
  type Config,
  DEFAULT_CARRIER_TIMEOUT_MS,
  DEFAULT_DELIVERY_WAIT_MS,
  DEFAULT_RETENTION_DAYS,
} from './config.js';
import { createSmppGateway, type SmppGateway } from './delivery/carriers/smpp/gateway.js';
import { createDevProvider, type DevProvider } from './delivery/dev-provider.js';
import { createDispatcher, type Dispatcher } from './delivery/dispatcher.js';
import { createOutbox, type Outbox } from './delivery/outbox.js';
import {
  type CarrierStatusReports,
  createCarrierStatusReports,
  createDeliveryReports,
} from './delivery/reports.js';
import { createProviderRouter } from './delivery/router.js';
import type { Health } from './http/health.js';
import { createKeyService, type KeyService } from './keys/service.js';
import { createRequestLimiter, type RequestLimiter } from './limits/request-limit.js';
import { deriveKey, loadOrCreateSecret } from './secret.js';
import { createOverview, type Overview } from './stats/overview.js';
import { openStore, type Store } from './store/database.js';
import { createRetention, type Retention } from './store/retention.js';
import { createVerificationLog, type VerificationLog } from './verification/log.js';
import { createVerificationService, type VerificationService } from './verification/service.js';
import { createWorkspaceService, type WorkspaceService } from './workspaces/service.js';

export interface Services {
  clock: Clock;
  /** Readiness: the database answers and every migration is applied. */
  health: Health;
  workspaces: WorkspaceService;
  keys: KeyService;
  verifications: VerificationService;
  /** The verifications log (the dashboard's list and phone search). */
  log: VerificationLog;
  /** The overview's numbers per workspace and period. */
  overview: Overview;
  /** The development outbox: what the development provider "sent". */
  outbox: Outbox;
  /** Durable delivery: retries, fail-over and jobs left by a process that died. */
  dispatcher: Dispatcher;
  devProvider: DevProvider;
  requestLimiter: RequestLimiter;
  retention: Retention;
  accounts: AccountService;
  carriers: CarrierService;
  /** SMPP sessions, one per account, opened by its first send; close() unbinds them (the serving process's end). */
  smpp: SmppGateway;
  /** Carrier status callbacks applied to the verification they concern (the webhooks). */
  statusReports: CarrierStatusReports;
  /** PUBLIC_URL: where carriers and browsers reach the service. One source for callbacks, cookies and docs. */
  publicUrl: string;
}

export interface DeliveryOptions {
  /** How long a send waits for its first hand-over (DELIVERY_WAIT_MS). */
  waitMs?: number;
  /** How long one request to a carrier may take (CARRIER_TIMEOUT_MS). */
  carrierTimeoutMs?: number;
  /** Jitter source of retry delays; tests pin it. */
  random?: () => number;
  /** Where background delivery work (dispatcher, SMPP sessions) reports: the serving process's log. */
  log?: DeliveryLog;
}

export interface DeliveryLog {
  info(message: string): void;
  warn(message: string, err?: unknown): void;
}

export function createServices(deps: {
  store: Store;
  secret?: string;
  clock?: Clock;
  retentionDays?: number;
  /** Where carriers reach the service (PUBLIC_URL): status callbacks are requested under it. */
  publicUrl: string;
  delivery?: DeliveryOptions;
}): Services {
  const { store } = deps;
  const clock = deps.clock ?? systemClock;
  const secret = loadOrCreateSecret(deps.secret, store.dataDir);
  const db = store.db;
  const workspaces = createWorkspaceService({ db, clock });
  const keys = createKeyService({ db, clock, workspaces });
  const devProvider = createDevProvider({ db, clock, reports: createDeliveryReports({ db, clock }) });
  const carrierAccounts = createCarrierService({ db, clock, secret, workspaces });
  const carrierTimeoutMs = deps.delivery?.carrierTimeoutMs ?? DEFAULT_CARRIER_TIMEOUT_MS;
  const statusReports = createCarrierStatusReports({ db, clock });
  const smpp = createSmppGateway({
    timeoutMs: carrierTimeoutMs,
    log: deps.delivery?.log,
    // Receipts arrive on the account's own session, so they are applied within its workspace alone.
    onReceipt: ({ workspaceId, report }) => statusReports.apply({ workspaceId, carrier: 'SMPP', report }),
  });
  const carriers: CarrierService = {
    ...carrierAccounts,
    // A removed SMPP account's session is unbound here at once; other processes' sweepers let theirs go.
    async removeAccount(workspaceId, id) {
      const removed = await carrierAccounts.removeAccount(workspaceId, id);
      await smpp.release(id);
      return removed;
    },
  };
  const providers = createProviderRouter({
    carriers,
    devProvider,
    publicUrl: deps.publicUrl,
    timeoutMs: carrierTimeoutMs,
    smpp,
  });
  const dispatcher = createDispatcher({
    store,
    clock,
    providers,
    jobKey: deriveKey(secret, 'delivery-jobs'),
    carrierTimeoutMs,
    random: deps.delivery?.random,
    warn: deps.delivery?.log?.warn,
  });
  const verifications = createVerificationService({
    db,
    clock,
    codeKey: deriveKey(secret, 'code-hash'),
    dispatcher,
    deliveryWaitMs: deps.delivery?.waitMs ?? DEFAULT_DELIVERY_WAIT_MS,
    workspaces,
  });
  const requestLimiter = createRequestLimiter({ db, clock });
  const retention = createRetention({
    store,
    clock,
    retentionDays: deps.retentionDays ?? DEFAULT_RETENTION_DAYS,
  });
  const accounts = createAccountService({ db, clock, workspaces });
  return {
    clock,
    health: {
      async check() {
        await store.checkReady();
        return { database: store.dialect };
      },
    },
    workspaces,
    keys,
    verifications,
    log: createVerificationLog({ db, clock }),
    overview: createOverview({ db, clock }),
    outbox: createOutbox({ db }),
    dispatcher,
    devProvider,
    requestLimiter,
    retention,
    accounts,
    carriers,
    smpp,
    statusReports,
    publicUrl: deps.publicUrl,
  };
}

/** The store named by the configuration and the services over it, for a one-shot process (a CLI command). */
export async function openServices(config: Config): Promise<{ services: Services; close(): Promise<void> }> {
  const store = await openStore(config.database);
  try {
    const services = createServices({ store, secret: config.secret, publicUrl: config.publicUrl });
    return { services, close: () => store.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}
