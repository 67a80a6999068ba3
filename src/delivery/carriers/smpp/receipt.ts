// SMSC delivery receipts, per SMPP v3.4 (Issue 1.2):
// - §4.6.1 deliver_sm; §5.2.12 esm_class bits 5-2 = 0001 (0x04): the PDU is an SMSC delivery receipt;
// - §5.3.2.12 receipted_message_id and §5.3.2.35 message_state (values in §5.2.28), the TLVs an SMSC may send;
// - Appendix B, the receipt's text in short_message (vendor-specific, but nearly every SMSC follows it):
//   "id:IIIIIIIIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DDDDDDD err:E text:…".
// The TLVs win where both are present; the text's err (a network or SMSC code) is kept either way.
import type { StatusReport } from '../../provider.js';

const MESSAGE_TYPE_MASK = 0x3c;
const SMSC_DELIVERY_RECEIPT = 0x04;

export function isDeliveryReceipt(esmClass: unknown): boolean {
  return typeof esmClass === 'number' && (esmClass & MESSAGE_TYPE_MASK) === SMSC_DELIVERY_RECEIPT;
}

/** §5.2.28 message_state values, as Appendix B abbreviates them in the receipt text. */
const STATE_NAMES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

const OUTCOMES: Record<string, StatusReport['state']> = {
  DELIVRD: 'delivered',
  ACCEPTD: 'accepted',
  ENROUTE: 'accepted',
  UNDELIV: 'failed',
  REJECTD: 'failed',
  EXPIRED: 'failed',
  DELETED: 'failed',
  UNKNOWN: 'failed',
};

/**
 * A deliver_sm's fields by their specification names (node-smpp's PDU): receipted_message_id, message_state,
 * short_message and message_payload (decoded to { message } by data_coding) are read.
 */
export type ReceiptPdu = Readonly<Record<string, unknown>>;

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  if (value !== null && typeof value === 'object' && 'message' in value) return textOf(value.message);
  return '';
}

/** One field of the receipt text ("stat:UNDELIV"), case-insensitive as SMSCs vary ("Text:", "Stat:"). */
function field(text: string, name: string): string | undefined {
  return new RegExp(`(?:^|\\s)${name}:(\\S+)`, 'i').exec(text)?.[1];
}

/** The report a receipt carries; undefined when it names no message or no known state. */
export function parseReceipt(pdu: ReceiptPdu): StatusReport | undefined {
  const text = textOf(pdu.short_message) || textOf(pdu.message_payload);
  const tlvId = typeof pdu.receipted_message_id === 'string' ? pdu.receipted_message_id.trim() : '';
  const providerId = tlvId || field(text, 'id');
  const tlvState = typeof pdu.message_state === 'number' ? STATE_NAMES[pdu.message_state] : undefined;
  const stat = tlvState ?? field(text, 'stat')?.toUpperCase();
  const state = stat === undefined ? undefined : OUTCOMES[stat];
  if (!providerId || !stat || !state) return undefined;
  if (state !== 'failed') return { providerId, state };
  const err = field(text, 'err');
  return { providerId, state, carrierCode: err ?? stat, carrierMessage: stat };
}
