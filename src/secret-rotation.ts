// Changing the server secret (docs/operations.md, "Changing the server secret"). What is sealed (carrier
// credentials, delivery jobs' codes) opens with the current secret or, while it is set, PHONE_VERIFY_PREVIOUS_SECRET;
// `secret reseal` seals again under the current one what only the previous one opens. A serving process checks
// at start that every carrier account opens, and refuses to serve otherwise: its sends and its status webhooks
// would fail one by one, far from the cause. Code hashes cannot be moved (the codes are not kept): they are
// checked with the previous secret while it is set, and no code lives longer than MAX_TTL_SECONDS.
import type { CarrierService } from './carrier-accounts/service.js';
import type { Dispatcher } from './delivery/dispatcher.js';
import { AppError } from './errors.js';
import type { ResealTally } from './sealing.js';
import type { ServerSecrets } from './secret.js';
import type { WebhookService } from './webhooks/service.js';

export interface ResealReport {
  /** Whether PHONE_VERIFY_PREVIOUS_SECRET was set (without it, nothing can need resealing). */
  previous_secret: boolean;
  carrier_accounts: ResealTally;
  delivery_jobs: { total: number; resealed: number; unreadable: number };
  /** Webhook endpoints' signing secrets (current and, for 24 hours after a rotation, previous). */
  webhook_secrets: { total: number; resealed: number; unreadable: number };
}

export interface StartCheck {
  /** Why the process must not serve (one line), if it must not. */
  refusal?: string;
  warnings: string[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function someIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(', ');
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}

export function createSecretRotation(deps: {
  secrets: ServerSecrets;
  carriers: Pick<CarrierService, 'resealCredentials'>;
  dispatcher: Pick<Dispatcher, 'resealCodes'>;
  webhooks: Pick<WebhookService, 'resealSecrets'>;
}) {
  const { secrets } = deps;
  const hasPrevious = secrets.previous !== undefined;
  const tried = hasPrevious ? `${secrets.source} nor PHONE_VERIFY_PREVIOUS_SECRET` : secrets.source;

  function unreadableAccounts(ids: readonly string[]): string {
    return `the credentials of ${plural(ids.length, 'carrier account', 'carrier accounts')} (${someIds(ids)}) do not open with the server secret (${tried})`;
  }

  return {
    async checkAtStart(): Promise<StartCheck> {
      const accounts = await deps.carriers.resealCredentials(false);
      const jobs = await deps.dispatcher.resealCodes(false);
      const warnings: string[] = [];
      if (accounts.resealed + jobs.resealed > 0) {
        warnings.push(
          `${plural(accounts.resealed, 'carrier account', 'carrier accounts')} and ${plural(jobs.resealed, 'delivery job', 'delivery jobs')} are still sealed under PHONE_VERIFY_PREVIOUS_SECRET: run phone-verify secret reseal once every process has the new secret`,
        );
      }
      const hooks = await deps.webhooks.resealSecrets(false);
      if (hooks.resealed > 0) {
        warnings.push(
          `${plural(hooks.resealed, 'webhook signing secret is', 'webhook signing secrets are')} still sealed under PHONE_VERIFY_PREVIOUS_SECRET: run phone-verify secret reseal once every process has the new secret`,
        );
      }
      if (hooks.unreadable.length > 0) {
        warnings.push(
          `the signing secrets of ${plural(new Set(hooks.unreadable).size, 'webhook endpoint', 'webhook endpoints')} (${someIds([...new Set(hooks.unreadable)])}) do not open with the server secret: their webhooks fail until each gets a new one (phone-verify webhook rotate-secret WEBHOOK_ID)`,
        );
      }
      if (jobs.unreadable.length > 0) {
        warnings.push(
          `${plural(jobs.unreadable.length, 'delivery job holds a code', 'delivery jobs hold codes')} that no configured secret opens: those codes will not be delivered (their verifications become undelivered)`,
        );
      }
      if (accounts.unreadable.length === 0) return { warnings };
      return {
        warnings,
        refusal:
          `Not starting: ${unreadableAccounts(accounts.unreadable)}, so its sends and status callbacks would fail. ` +
          'Restore the secret they were sealed with; or set PHONE_VERIFY_PREVIOUS_SECRET to it, start, and run ' +
          'phone-verify secret reseal; or give each account new credentials (phone-verify carrier rotate ' +
          'CARRIER_ID ...). See docs/operations.md, "Changing the server secret".',
      };
    },

    /** `secret reseal`: everything only the previous secret opens, sealed again under the current one. */
    async reseal(): Promise<ResealReport> {
      const accounts = await deps.carriers.resealCredentials(true);
      const jobs = await deps.dispatcher.resealCodes(true);
      const hooks = await deps.webhooks.resealSecrets(true);
      if (accounts.unreadable.length > 0) {
        throw new AppError(
          'conflict',
          `${unreadableAccounts(accounts.unreadable)}: set PHONE_VERIFY_PREVIOUS_SECRET to the secret they were sealed with and run this again, or give them new credentials (phone-verify carrier rotate CARRIER_ID ...). ${plural(accounts.resealed, 'account was', 'accounts were')} resealed.`,
        );
      }
      return {
        previous_secret: hasPrevious,
        carrier_accounts: accounts,
        delivery_jobs: { total: jobs.total, resealed: jobs.resealed, unreadable: jobs.unreadable.length },
        webhook_secrets: {
          total: hooks.total,
          resealed: hooks.resealed,
          unreadable: hooks.unreadable.length,
        },
      };
    },
  };
}

export type SecretRotation = ReturnType<typeof createSecretRotation>;
