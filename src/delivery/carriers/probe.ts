// What every HTTP carrier's credential probe shares ("test credentials", docs/carriers.md): one GET within
// PROBE_TIMEOUT_MS, a redirect never followed, the answer read up to MAX_REPLY_BYTES, and the one classification:
// - ok: a 2xx whose body is the carrier's documented resource; the detail is what the carrier says of the account
//   (its name and status, its balance), each word printable and bounded (carrierText);
// - refused: 401 or 403, the carrier's documented error words (carrierErrorMessage, the rule error_message keeps);
// - unreachable: no answer (refused connection, DNS, TLS, the deadline), a redirect, 5xx, any other status, or a
//   2xx that is not the documented resource (whatever answers at a wrong base URL): the credentials were not tested.
// The request carries the credentials only in its headers, so no URL that an error could show holds a secret.
import type { CredentialTestResult } from '../../carrier-accounts/credential-test.js';
import { carrierText, MAX_CARRIER_TEXT } from '../carrier-text.js';
import { type CarrierError, carrierErrorMessage, exchange } from './http.js';

/** The whole deadline of a probe: connect, answer and body (a person is waiting for it). */
export const PROBE_TIMEOUT_MS = 10_000;

export interface HttpProbe {
  /** The carrier's label, which begins every detail ("Twilio"). */
  who: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch?: typeof fetch;
  /** The detail of a documented success body; undefined when the body is not the carrier's resource. */
  describe(body: Record<string, unknown>): string | undefined;
  /** The carrier's documented error fields (as its adapter reads them). */
  error(body: Record<string, unknown>): CarrierError | undefined;
}

export async function probeByGet(probe: HttpProbe): Promise<CredentialTestResult> {
  const { who } = probe;
  const result = await exchange(probe.url, {
    init: { method: 'GET', headers: { accept: 'application/json', ...probe.headers }, redirect: 'manual' },
    timeoutMs: probe.timeoutMs,
    fetch: probe.fetch,
  });
  if ('noAnswer' in result) {
    const { noAnswer } = result;
    // A TypeError with no socket error: fetch refused the request itself (a port it never calls, say).
    const why = noAnswer.timedOut
      ? `no answer within ${probe.timeoutMs} ms`
      : noAnswer.detail === 'TypeError'
        ? "the request could not be made (check the account's API address)"
        : noAnswer.detail;
    const stage = noAnswer.stage === 'connect' ? 'unreachable' : 'answer cut short';
    return unreachable(`${who} ${stage}: ${why}`);
  }
  const { reply } = result;
  if (reply.status >= 300 && reply.status < 400) {
    // Followed, the credentials would go wherever the redirect points: it is reported, never followed.
    return unreachable(
      `${who} HTTP ${reply.status}: a redirect, not followed (check the account's API address)`,
    );
  }
  if (reply.status === 401 || reply.status === 403) {
    return { outcome: 'refused', detail: carrierErrorMessage(who, reply, probe.error) };
  }
  if (!reply.ok) return unreachable(carrierErrorMessage(who, reply, probe.error));
  const described = reply.body ? probe.describe(reply.body) : undefined;
  if (described === undefined || described === '') {
    return unreachable(
      `${who} HTTP ${reply.status} without the documented answer (check the account's API address)`,
    );
  }
  return { outcome: 'ok', detail: carrierText(`${who}: ${described}`) };
}

export function unreachable(detail: string): CredentialTestResult {
  return { outcome: 'unreachable', detail: carrierText(detail, MAX_CARRIER_TEXT) };
}

/** A carrier's string or finite number as a probe's detail may carry it (short: the detail holds a few). */
export function word(value: unknown, max = 60): string {
  return carrierText(value, max);
}
