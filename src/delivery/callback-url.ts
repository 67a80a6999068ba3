// The status callback URL of an account: where its carrier's signed status callbacks are answered
// (POST /webhooks/<type>/:accountId). A carrier without a webhook (its reports come some other way) has none.
import { type AnyCarrier, findCarrier } from './carriers/descriptor.js';

/** Where the carrier posts status callbacks for one account (the webhook routes answer there). */
export function statusCallbackUrl(publicUrl: string, account: { id: string; type: string }): string {
  return `${publicUrl.replace(/\/+$/, '')}/webhooks/${account.type}/${account.id}`;
}

/** The callback URL an operator sees for an account (CLI list, dashboard); null for a carrier without one. */
export function callbackUrlOf(
  carriers: readonly AnyCarrier[],
  publicUrl: string,
  account: { id: string; type: string },
): string | null {
  return findCarrier(carriers, account.type)?.webhook ? statusCallbackUrl(publicUrl, account) : null;
}
