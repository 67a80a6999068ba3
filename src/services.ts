// The composition root: builds every service from the store, the clock and the secret. The HTTP app, the CLI
// and the sweeper all take their services from here, so each rule lives in one place.
import { type AccountService, createAccountService } from './accounts/service.js';
import { createProviderRouter } from './carriers/router.js';
import { type CarrierService, createCarrierService } from './carriers/service.js';
import { type Clock, systemClock } from './clock.js';
import { createDevProvider, type DevProvider } from './delivery/dev-provider.js';
import { createKeyService, type KeyService } from './keys/service.js';
import { createRequestLimiter, type RequestLimiter } from './limits/request-limit.js';
import { deriveKey, loadOrCreateSecret } from './secret.js';
import type { Store } from './store/database.js';
import { createRetention, type Retention } from './store/retention.js';
import { createDeliveryReports } from './verification/delivery-reports.js';
import { createVerificationService, type VerificationService } from './verification/service.js';
import { createWorkspaceService, type WorkspaceService } from './workspaces/service.js';

export interface Services {
  store: Store;
  clock: Clock;
  workspaces: WorkspaceService;
  keys: KeyService;
  verifications: VerificationService;
  devProvider: DevProvider;
  requestLimiter: RequestLimiter;
  retention: Retention;
  accounts: AccountService;
  carriers: CarrierService;
  /** PUBLIC_URL: where carriers and browsers reach the service. One source for callbacks, cookies and docs. */
  publicUrl: string;
}

export const DEFAULT_RETENTION_DAYS = 30;

export function createServices(deps: {
  store: Store;
  secret?: string;
  clock?: Clock;
  retentionDays?: number;
  /** Where carriers reach the service (PUBLIC_URL): status callbacks are requested under it. */
  publicUrl: string;
}): Services {
  const { store } = deps;
  const clock = deps.clock ?? systemClock;
  const secret = loadOrCreateSecret(deps.secret, store.dataDir);
  const db = store.db;
  const workspaces = createWorkspaceService({ db, clock });
  const keys = createKeyService({ db, clock, workspaces });
  const devProvider = createDevProvider({ db, clock, reports: createDeliveryReports({ db, clock }) });
  const carriers = createCarrierService({ db, clock, secret, workspaces });
  const providers = createProviderRouter({ carriers, devProvider, publicUrl: deps.publicUrl });
  const verifications = createVerificationService({
    db,
    clock,
    codeKey: deriveKey(secret, 'code-hash'),
    providers,
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
    store,
    clock,
    workspaces,
    keys,
    verifications,
    devProvider,
    requestLimiter,
    retention,
    accounts,
    carriers,
    publicUrl: deps.publicUrl,
  };
}
