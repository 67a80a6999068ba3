// The provider router: a number tied to a carrier account sends through that account's adapter, any other
// number through the development provider. Adapters are built per send from the stored account, so a change
// of credentials applies to the next send (building one is cheap: no connection is kept; SMPP's sessions live
// in the gateway, which replaces a session whose credentials changed).

import { CredentialsUnreadableError } from '../carrier-accounts/credentials.js';
import type { CarrierAccount, CarrierService } from '../carrier-accounts/service.js';
import type { NumberRow } from '../workspaces/repository.js';
import { statusCallbackUrl } from './callback-url.js';
import type { SmppGateway } from './carriers/smpp/gateway.js';
import { createTelnyxAdapter } from './carriers/telnyx/adapter.js';
import { createTwilioAdapter } from './carriers/twilio/adapter.js';
import { createVonageAdapter } from './carriers/vonage/adapter.js';
import type { DeliveryProvider, HandOver, ProviderRouter } from './provider.js';

/** A provider that takes nothing: the number's account cannot send, and every send says why. */
function refusing(name: string, errorMessage: string): DeliveryProvider {
  const refusal: HandOver = { ok: false, providerId: null, errorCode: 'provider_error', errorMessage };
  return { name, send: async () => refusal };
}

function adapterFor(
  account: CarrierAccount,
  callbackUrl: string,
  timeoutMs?: number,
  smpp?: SmppGateway,
): DeliveryProvider {
  const common = { baseUrl: account.baseUrl, statusCallbackUrl: callbackUrl, timeoutMs };
  switch (account.type) {
    case 'twilio':
      return createTwilioAdapter({ ...common, credentials: account.credentials });
    case 'telnyx':
      return createTelnyxAdapter({ ...common, credentials: account.credentials });
    case 'vonage':
      return createVonageAdapter({ ...common, credentials: account.credentials });
    case 'smpp':
      // SMPP keeps a bound session per account, so its adapters come from the process's one gateway.
      if (smpp) return smpp.adapterFor(account);
      return refusing(
        'smpp',
        `Carrier account ${account.id} is an SMPP account, and SMPP sending is not set up in this process: nothing was sent.`,
      );
  }
}

export function createProviderRouter(deps: {
  carriers: Pick<CarrierService, 'getAccount'>;
  devProvider: DeliveryProvider;
  publicUrl: string;
  /** How long one request to a carrier may take (the adapters' default where unset). */
  timeoutMs?: number;
  /** The process's SMPP sessions; without it, SMPP accounts refuse every send. */
  smpp?: SmppGateway;
}): ProviderRouter {
  const { carriers, devProvider, publicUrl } = deps;
  return {
    async providerFor(sender: NumberRow): Promise<DeliveryProvider> {
      if (sender.carrier_id === null) return devProvider;
      let account: CarrierAccount | undefined;
      try {
        account = await carriers.getAccount(sender.carrier_id);
      } catch (err) {
        if (!(err instanceof CredentialsUnreadableError)) throw err;
        // Sealed under another server secret, or altered: the account cannot be used until re-added.
        return refusing(
          'carrier',
          `The credentials of carrier account ${sender.carrier_id} cannot be read with this server's secret: nothing was sent.`,
        );
      }
      if (!account || account.workspaceId !== sender.workspace_id) {
        return refusing(
          'carrier',
          `Carrier account ${sender.carrier_id} no longer exists: nothing was sent.`,
        );
      }
      return adapterFor(account, statusCallbackUrl(publicUrl, account), deps.timeoutMs, deps.smpp);
    },
  };
}
