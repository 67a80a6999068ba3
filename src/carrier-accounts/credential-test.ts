// "Test credentials": one harmless call to the carrier with an account's stored credentials, and its outcome.
// The call itself is the carrier's (its descriptor's probe, src/delivery/carriers/<type>/probe.ts): accounts never
// import delivery, so the composition root hands the carrier service a CredentialProbe that runs it.
import type { CarrierAccount } from './account-types.js';

/** ok: the carrier took the credentials; refused: it rejected them; unreachable: no usable answer came. */
export const CREDENTIAL_TEST_OUTCOMES = ['ok', 'refused', 'unreachable'] as const;
export type CredentialTestOutcome = (typeof CREDENTIAL_TEST_OUTCOMES)[number];

/** What a probe found. `detail` is short, printable and bounded (carrier-text.ts), and never holds a secret. */
export interface CredentialTestResult {
  outcome: CredentialTestOutcome;
  detail: string;
}

/** Runs the probe of an account's carrier; undefined when its carrier offers none. Never throws. */
export type CredentialProbe = (account: CarrierAccount) => Promise<CredentialTestResult | undefined>;

/** A test as the dashboard and the CLI show it. */
export interface CredentialTestView extends CredentialTestResult {
  id: string;
  type: string;
  tested_at: string;
}
