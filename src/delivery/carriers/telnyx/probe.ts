// Telnyx's credential test: the account's balance, GET /v2/balance with the Bearer API key
// (developers.telnyx.com, api-reference/billing/get-user-balance-details; "first API request" names it the
// read-only authentication check). 200 { data: { record_type: "balance", balance, available_credit, currency,
// ... } } (amounts are decimal strings); a wrong key is 401 { errors: [{ code: "10009", title: "Authentication
// failed", ... }] }, a key without the right 403 (10010).
import type { CarrierAccountOf, CredentialTestResult, ProbeContext } from '../descriptor.js';
import { asObject } from '../http.js';
import { probeByGet, word } from '../probe.js';
import { TELNYX_BASE_URL, type TelnyxCredentials, telnyxError } from './adapter.js';

export function probeTelnyx(
  account: CarrierAccountOf<TelnyxCredentials>,
  context: ProbeContext<unknown>,
): Promise<CredentialTestResult> {
  const base = (account.baseUrl ?? TELNYX_BASE_URL).replace(/\/+$/, '');
  return probeByGet({
    who: 'Telnyx',
    url: `${base}/v2/balance`,
    headers: { authorization: `Bearer ${account.credentials.apiKey}` },
    timeoutMs: context.timeoutMs,
    fetch: context.fetch,
    describe: (body) => {
      const data = asObject(body.data);
      const balance = word(data?.balance, 30);
      if (!data || !balance) return undefined;
      const currency = word(data.currency, 10);
      const available = word(data.available_credit, 30);
      return `balance ${balance}${currency ? ` ${currency}` : ''}${available ? `, available credit ${available}` : ''}`;
    },
    error: telnyxError,
  });
}
