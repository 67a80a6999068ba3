// The message of a verification's code as a provider receives it: the SMS text and the call's script, both built
// from the verification's brand and the destination's locale.
import type { VerificationsTable } from '../store/tables.js';
import type { OutboundMessage } from './provider.js';
import { smsText } from './sms-text.js';
import { localeFor, voiceScript } from './voice-script.js';

/** The message for a verification and its code, as the carrier receives it. */
export function outboundMessage(row: VerificationsTable, from: string, code: string): OutboundMessage {
  const locale = localeFor(row.country ?? '');
  return {
    verificationId: row.id,
    workspaceId: row.workspace_id,
    channel: row.channel,
    to: row.phone,
    from,
    locale,
    text: smsText(row.brand_name, code),
    voice: voiceScript(row.brand_name, code, locale),
    mode: row.mode,
  };
}
