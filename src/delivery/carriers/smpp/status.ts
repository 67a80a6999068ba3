// What an SMSC's command_status means for a send. SMPP v3.4 (Issue 1.2) §5.1.3 lists the codes; which of them
// are worth retrying is not in the specification, so the choice is made (and documented in docs/carriers.md)
// here:
// - retried later (TransientDeliveryError): the SMSC is busy or failing, not refusing this message:
//   ESME_RSYSERR 0x08, ESME_RMSGQFUL 0x14, ESME_RSUBMITFAIL 0x45, ESME_RTHROTTLED 0x58, ESME_RINVBNDSTS 0x04
//   (the SMSC lost track of our bind: a new session fixes it), ESME_RUNKNOWNERR 0xFF;
// - destination_rejected: ESME_RINVDSTADR 0x0B, the one code that refuses this destination (invalid dest TON
//   or NPI would refuse every destination: the account's set-up, so provider_error);
// - anything else (invalid source address, data coding, vendor codes 0x400-0x4FF, …): provider_error.
import smpp from 'smpp';
import type { DeliveryErrorCode } from '../../error-codes.js';

export const ESME = {
  ROK: 0x00,
  RINVBNDSTS: 0x04,
  RSYSERR: 0x08,
  RINVDSTADR: 0x0b,
  RBINDFAIL: 0x0d,
  RINVPASWD: 0x0e,
  RINVSYSID: 0x0f,
  RMSGQFUL: 0x14,
  RSUBMITFAIL: 0x45,
  RTHROTTLED: 0x58,
  RUNKNOWNERR: 0xff,
} as const;

const TRANSIENT = new Set<number>([
  ESME.RINVBNDSTS,
  ESME.RSYSERR,
  ESME.RMSGQFUL,
  ESME.RSUBMITFAIL,
  ESME.RTHROTTLED,
  ESME.RUNKNOWNERR,
]);

const DESTINATION = new Set<number>([ESME.RINVDSTADR]);

const NAMES = new Map<number, string>(Object.entries(smpp.errors).map(([name, value]) => [value, name]));

/** "ESME_RINVDSTADR (0x0000000B)": the name the specification gives a command_status, and its value. */
export function describeStatus(status: number): string {
  const hex = `0x${status.toString(16).toUpperCase().padStart(8, '0')}`;
  const name =
    NAMES.get(status) ?? (status >= 0x400 && status <= 0x4ff ? 'vendor-specific error' : 'unknown status');
  return `${name} (${hex})`;
}

/** The outcome of a submit_sm_resp with a non-zero command_status. */
export function classifySubmitStatus(status: number): 'transient' | DeliveryErrorCode {
  if (TRANSIENT.has(status)) return 'transient';
  return DESTINATION.has(status) ? 'destination_rejected' : 'provider_error';
}

/**
 * A refused bind_transceiver_resp: busy or failing SMSCs are retried; everything else (a wrong system id or
 * password, ESME_RBINDFAIL, a refused system_type) is the account's set-up and will not fix itself.
 */
export function isTransientBindStatus(status: number): boolean {
  return TRANSIENT.has(status) || status === 0x05; // ESME_RALYBND: a stale session on the SMSC's side
}
