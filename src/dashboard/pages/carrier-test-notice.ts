// The Carriers page's notice after "Test credentials": what the outcome means, then the carrier's own words
// (already printable and bounded by the probe).
import type { CredentialTestView } from '../../carrier-accounts/service.js';

const MEANING: Record<CredentialTestView['outcome'], string> = {
  ok: 'the carrier accepted the credentials',
  refused: 'the carrier refused the credentials: rotate them',
  unreachable: 'the carrier could not be reached, so the credentials were not tested',
};

export function testedNotice(
  label: string,
  tested: CredentialTestView,
): { text: string; kind: 'ok' | 'error' } {
  return {
    kind: tested.outcome === 'ok' ? 'ok' : 'error',
    text: `${label} account ${tested.id}: ${MEANING[tested.outcome]}. ${tested.detail}`,
  };
}
