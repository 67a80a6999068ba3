// The provider router: a number tied to a carrier account sends through that account's adapter, any other
// number through the development provider; a test-mode code goes to the test outbox whatever its number. Adapters are built per send from the stored account by its
// carrier's descriptor, so a change of credentials applies to the next send (building one is cheap: no
// connection is kept; carriers that keep sessions hold them in their runtime, which replaces a session whose
// credentials changed).

import { CredentialsUnreadableError } from '../carrier-accounts/credentials.js';
import type { CarrierAccount, CarrierService } from '../carrier-accounts/service.js';
import type { Mode } from '../vocabulary/modes.js';
import type { NumberRow } from '../workspaces/repository.js';
import { statusCallbackUrl } from './callback-url.js';
import { type AnyCarrier, findCarrier, refusingProvider } from './carriers/descriptor.js';
import { BUILT_IN_CARRIERS } from './carriers/index.js';
import type { CarrierRuntimes } from './carriers/runtime.js';
import { testOutboxProvider } from './dev-provider.js';
import type { DeliveryProvider, LocalProvider, ProviderRouter } from './provider.js';

export function createProviderRouter(deps: {
  carriers: Pick<CarrierService, 'getAccount'>;
  devProvider: LocalProvider;
  publicUrl: string;
  /** How long one request to a carrier may take (the adapters' default where unset). */
  timeoutMs?: number;
  /** The carriers accounts may be of (default: the built-in ones). */
  carrierTypes?: readonly AnyCarrier[];
  /** The process's carrier runtimes; without them, accounts of a carrier that needs one refuse every send. */
  runtimes?: Pick<CarrierRuntimes, 'of'>;
}): ProviderRouter {
  const { carriers, devProvider, publicUrl } = deps;
  const carrierTypes = deps.carrierTypes ?? BUILT_IN_CARRIERS;
  const testOutbox = testOutboxProvider(devProvider);
  /** The provider of a number with no carrier account (in live mode), or of any number in test mode. */
  const localProviderFor = (sender: NumberRow, mode: Mode): LocalProvider | undefined =>
    // Test mode: the outbox, whatever carrier account the number uses. No account is even read.
    mode === 'test' ? testOutbox : sender.carrier_id === null ? devProvider : undefined;

  /** The adapter of the number's carrier account, as now stored. */
  async function carrierProvider(sender: NumberRow, carrierId: string): Promise<DeliveryProvider> {
    let account: CarrierAccount | undefined;
    try {
      account = await carriers.getAccount(carrierId);
    } catch (err) {
      if (!(err instanceof CredentialsUnreadableError)) throw err;
      // Sealed under another server secret, or altered: the account cannot be used until re-added.
      return refusingProvider(
        'carrier',
        `The credentials of carrier account ${carrierId} cannot be read with this server's secret: nothing was sent.`,
      );
    }
    if (!account || account.workspaceId !== sender.workspace_id) {
      return refusingProvider('carrier', `Carrier account ${carrierId} no longer exists: nothing was sent.`);
    }
    const carrier = findCarrier(carrierTypes, account.type);
    if (!carrier) {
      return refusingProvider(
        account.type,
        `Carrier account ${account.id} is of type ${account.type}, which this process does not know: nothing was sent.`,
      );
    }
    return carrier.createAdapter(account, {
      statusCallbackUrl: statusCallbackUrl(publicUrl, account),
      timeoutMs: deps.timeoutMs,
      runtime: deps.runtimes?.of(carrier.type),
    });
  }

  return {
    localProviderFor,
    async providerFor(sender, mode = 'live') {
      return localProviderFor(sender, mode) ?? carrierProvider(sender, sender.carrier_id ?? '');
    },
  };
}
