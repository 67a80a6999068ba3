// Runs the credential probe of an account's carrier (its descriptor's `probe`), for the carrier service's
// "test credentials" (services.ts hands it over: accounts never import delivery). Whatever a probe does, the
// answer is an outcome, never a thrown error, and its detail never holds a credential.
import type { CredentialProbe } from '../carrier-accounts/credential-test.js';
import { type AnyCarrier, findCarrier } from './carriers/descriptor.js';
import { PROBE_TIMEOUT_MS, unreachable } from './carriers/probe.js';
import type { CarrierRuntimes } from './carriers/runtime.js';

export function createCredentialProbe(deps: {
  carrierTypes: readonly AnyCarrier[];
  /** The process's carrier runtimes (SMPP binds through its gateway). */
  runtimes?: Pick<CarrierRuntimes, 'of'>;
  /** Default PROBE_TIMEOUT_MS; tests shorten it. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}): CredentialProbe {
  const timeoutMs = deps.timeoutMs ?? PROBE_TIMEOUT_MS;
  return async (account) => {
    const carrier = findCarrier(deps.carrierTypes, account.type);
    if (!carrier?.probe) return undefined;
    try {
      return await carrier.probe(account, {
        timeoutMs,
        runtime: deps.runtimes?.of(carrier.type),
        fetch: deps.fetch,
      });
    } catch {
      // A probe resolves whatever the carrier does; this is a fault of ours, and its message is not shown (it
      // could name what the probe held).
      return unreachable(`${carrier.label}: the test could not be run`);
    }
  };
}
