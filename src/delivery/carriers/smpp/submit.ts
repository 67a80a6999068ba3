// The submit_sm for one SMS, per SMPP v3.4 (Issue 1.2):
// - §4.4.1 submit_sm; addresses per §5.2.5 (addr_ton 1: international) and §5.2.6 (addr_npi 1: ISDN E.163/
//   E.164), the E.164 digits without '+';
// - §5.2.17 registered_delivery 1: an SMSC delivery receipt on the final outcome, success or failure;
// - §5.2.19 data_coding 0 (SMSC default alphabet, sent as GSM 03.38 / 3GPP TS 23.038 default-alphabet codes,
//   one per octet, escape 0x1B for the extension table) when every character is in that alphabet, else 8
//   (UCS2, sent as UTF-16BE);
// - §5.2.21-22 short_message (at most 254 octets) for a text that fits one SMS (160 septets, 70 UCS2 units);
//   a longer text goes in the message_payload TLV (§5.3.2.32, up to 64K octets, sm_length 0) and the SMSC
//   splits it, as the specification leaves segmentation to the SMSC when message_payload is used.
import type { OutboundMessage } from '../../provider.js';

/** The GSM 03.38 default alphabet, by code (0x1B is the escape to the extension table). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: each character is sent as 0x1B then its code (two septets). */
const GSM_EXTENSION: Record<string, number> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};
const GSM_CODES = new Map<string, number>(
  [...GSM_BASIC].map((char, code) => [char, code] as const).filter(([char]) => char !== '\u001b'),
);

export const DATA_CODING_DEFAULT = 0;
export const DATA_CODING_UCS2 = 8;
/** One SMS: 160 default-alphabet septets or 70 UCS2 units (GSM 03.40). */
const ONE_SMS_SEPTETS = 160;
const ONE_SMS_UCS2_UNITS = 70;

export interface EncodedText {
  dataCoding: typeof DATA_CODING_DEFAULT | typeof DATA_CODING_UCS2;
  bytes: Buffer;
  /** Whether it fits one SMS (short_message) or needs message_payload. */
  fitsOneSms: boolean;
}

/** The GSM default-alphabet codes of the text (one octet per septet), or undefined if a character is not in it. */
export function toGsm7(text: string): Buffer | undefined {
  const codes: number[] = [];
  for (const char of text) {
    const code = GSM_CODES.get(char);
    if (code !== undefined) {
      codes.push(code);
      continue;
    }
    const extended = GSM_EXTENSION[char];
    if (extended === undefined) return undefined;
    codes.push(0x1b, extended);
  }
  return Buffer.from(codes);
}

export function encodeText(text: string): EncodedText {
  const gsm = toGsm7(text);
  if (gsm) {
    return { dataCoding: DATA_CODING_DEFAULT, bytes: gsm, fitsOneSms: gsm.length <= ONE_SMS_SEPTETS };
  }
  // UTF-16BE: UCS2 for the basic plane; characters beyond it go as surrogate pairs, which phones read.
  const bytes = Buffer.from(text, 'utf16le').swap16();
  return { dataCoding: DATA_CODING_UCS2, bytes, fitsOneSms: bytes.length / 2 <= ONE_SMS_UCS2_UNITS };
}

const TON_INTERNATIONAL = 1;
const NPI_ISDN = 1;
/** registered_delivery bits 1-0 = 01: a receipt on the final outcome, delivered or failed. */
const RECEIPT_ON_FINAL_OUTCOME = 1;

/** The submit_sm body for an SMS (node-smpp field names, as in the specification). */
export function submitSmFor(message: OutboundMessage): Record<string, unknown> {
  const text = encodeText(message.text);
  return {
    source_addr_ton: TON_INTERNATIONAL,
    source_addr_npi: NPI_ISDN,
    source_addr: message.from.replace(/^\+/, ''),
    dest_addr_ton: TON_INTERNATIONAL,
    dest_addr_npi: NPI_ISDN,
    destination_addr: message.to.replace(/^\+/, ''),
    esm_class: 0,
    registered_delivery: RECEIPT_ON_FINAL_OUTCOME,
    data_coding: text.dataCoding,
    ...(text.fitsOneSms
      ? { short_message: text.bytes }
      : { short_message: Buffer.alloc(0), message_payload: text.bytes }),
  };
}
