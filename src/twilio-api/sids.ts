// Twilio-shaped identifiers for phone-verify's own, the one place they are made and read back. Twilio's SIDs are
// two letters and 32 hex digits (twilio_verify_v2.json: `^VA[0-9a-fA-F]{32}$` and so on); SDKs and callers' tables
// (a CHAR(34) column) expect exactly that, so the facade never answers a `ver_…` or `ws_…` id where a SID goes.
//
// - Service (VA…) and account (AC…): derived from the workspace id by a plain hash, so nothing is stored, nothing
//   depends on the server secret (a rotation never changes them), and the dashboard and the CLI show the same one.
// - Verification (VE…): the id's first 21 characters after `ver_` (its 8 time characters and 13 of its 16 random
//   ones) as one base-62 number (under 2^125) in 32 hex digits. That is reversible to those 21 characters, which
//   the store finds through an index of them (migration 0015); the 3 characters left out leave 77 random bits in
//   the SID, so two verifications made in the same millisecond share it with a chance of one in 2^77.
import { createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_PREFIX = 'ver_';
/** How many characters after `ver_` a VE SID carries. */
export const SID_PREFIX_CHARS = 21;

const VERIFICATION_ID = /^ver_[0-9A-Za-z]{24}$/;
const VERIFICATION_SID = /^VE[0-9a-fA-F]{32}$/;

function derived(letters: 'VA' | 'AC', workspaceId: string): string {
  const digest = createHash('sha256').update(`phone-verify:twilio:${letters}:${workspaceId}`).digest('hex');
  return `${letters}${digest.slice(0, 32)}`;
}

/** The workspace's Verify Service SID: what a Twilio SDK names in `services(…)`. */
export function twilioServiceSid(workspaceId: string): string {
  return derived('VA', workspaceId);
}

/** The `account_sid` the facade's resources carry for the workspace. */
export function twilioAccountSid(workspaceId: string): string {
  return derived('AC', workspaceId);
}

/** Whether a path's ServiceSid names the workspace: its id or its VA alias. */
export function namesWorkspace(serviceSid: string, workspaceId: string): boolean {
  return serviceSid === workspaceId || serviceSid === twilioServiceSid(workspaceId);
}

/** A verification id's SID: `VE` and 32 hex digits. */
export function verificationSid(id: string): string {
  let n = 0n;
  for (const char of id.slice(ID_PREFIX.length, ID_PREFIX.length + SID_PREFIX_CHARS)) {
    n = n * 62n + BigInt(ALPHABET.indexOf(char));
  }
  return `VE${n.toString(16).padStart(32, '0')}`;
}

/** The 21 characters after `ver_` a VE SID stands for; undefined for a string not in the SID's shape. */
export function idPrefixOfSid(sid: string): string | undefined {
  if (!VERIFICATION_SID.test(sid)) return undefined;
  let n = BigInt(`0x${sid.slice(2)}`);
  let out = '';
  for (let i = 0; i < SID_PREFIX_CHARS; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  // 32 hex digits can hold more than 21 base-62 ones: such a SID was never made here.
  return n === 0n ? out : undefined;
}

export function isVerificationId(value: string): boolean {
  return VERIFICATION_ID.test(value);
}
