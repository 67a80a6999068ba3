// Twilio's credential test: fetch the account itself, GET /2010-04-01/Accounts/{AccountSid}.json with HTTP Basic
// AccountSid:AuthToken (twilio.com/docs/iam/api/account, "Fetch an Account resource"). It changes nothing and
// costs nothing. The resource also carries the account's auth_token: only `friendly_name` and `status` are read.
// Wrong credentials are 401 { code: 20003, message: "Authenticate" } (twilio.com/docs/api/errors/20003).
import type { CarrierAccountOf, CredentialTestResult, ProbeContext } from '../descriptor.js';
import { probeByGet, word } from '../probe.js';
import { TWILIO_API_BASE, type TwilioCredentials, twilioError } from './adapter.js';

export function probeTwilio(
  account: CarrierAccountOf<TwilioCredentials>,
  context: ProbeContext<unknown>,
): Promise<CredentialTestResult> {
  const { accountSid, authToken } = account.credentials;
  const base = (account.baseUrl ?? TWILIO_API_BASE).replace(/\/+$/, '');
  return probeByGet({
    who: 'Twilio',
    url: `${base}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}.json`,
    headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}` },
    timeoutMs: context.timeoutMs,
    fetch: context.fetch,
    describe: (body) => {
      // The documented resource names the account asked for.
      if (body.sid !== accountSid) return undefined;
      const name = word(body.friendly_name);
      const status = word(body.status, 20);
      return `account ${name ? `"${name}"` : accountSid}${status ? `, ${status}` : ''}`;
    },
    error: twilioError,
  });
}
