// Vonage's credential test: the account's balance, GET /account/get-balance (Account API, "Get Account Balance":
// developer.vonage.com/account/code-snippets/account-balance) with the API key and secret as HTTP Basic, as the
// documented curl example sends them (`-u key:secret`), so the secret is never in a URL. The Account API lives
// on https://rest.nexmo.com (its OpenAPI's server for this path), not on api.nexmo.com where messages and calls
// go; an account's base URL, where the operator set one, replaces it as it replaces the other. 200 { value: 10.28,
// autoReload: false } (value in EUR); wrong credentials are 401 { "error-code": "401", "error-code-label":
// "authentication failed" }.

import type { CarrierAccountOf, CredentialTestResult, ProbeContext } from '../descriptor.js';
import type { CarrierError } from '../http.js';
import { probeByGet, word } from '../probe.js';
import { type VonageCredentials, vonageError } from './adapter.js';

export const VONAGE_ACCOUNT_API_BASE = 'https://rest.nexmo.com';

export function probeVonage(
  account: CarrierAccountOf<VonageCredentials>,
  context: ProbeContext<unknown>,
): Promise<CredentialTestResult> {
  const { apiKey, apiSecret } = account.credentials;
  const base = (account.baseUrl ?? VONAGE_ACCOUNT_API_BASE).replace(/\/+$/, '');
  return probeByGet({
    who: 'Vonage',
    url: `${base}/account/get-balance`,
    headers: { authorization: `Basic ${Buffer.from(`${apiKey}:${apiSecret}`).toString('base64')}` },
    timeoutMs: context.timeoutMs,
    fetch: context.fetch,
    describe: (body) => {
      if (typeof body.value !== 'number' || !Number.isFinite(body.value)) return undefined;
      const reload =
        typeof body.autoReload === 'boolean' ? `, auto-reload ${body.autoReload ? 'on' : 'off'}` : '';
      return `balance ${word(body.value, 30)} EUR${reload}`;
    },
    error: accountApiError,
  });
}

/** The Account API's own error fields ("error-code", "error-code-label"), else the RFC 7807 ones other APIs use. */
function accountApiError(body: Record<string, unknown>): CarrierError {
  if (body['error-code'] !== undefined || body['error-code-label'] !== undefined) {
    return { code: body['error-code'], words: [body['error-code-label']] };
  }
  return vonageError(body);
}
