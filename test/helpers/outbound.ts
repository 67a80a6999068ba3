// The OutboundMessage the carrier adapter tests hand to send(): an SMS or a call from Acme to an Australian
// mobile, with the real SMS text and voice script for the code; overrides replace any field.
import type { OutboundMessage } from '../../src/delivery/provider.js';
import { smsText } from '../../src/delivery/sms-text.js';
import { voiceScript } from '../../src/delivery/voice-script.js';

export function outboundMessage(
  channel: OutboundMessage['channel'],
  overrides: Partial<OutboundMessage> = {},
  code = '482913',
): OutboundMessage {
  const locale = overrides.locale ?? 'en-AU';
  return {
    verificationId: 'ver_1',
    workspaceId: 'ws_1',
    channel,
    to: '+61412345678',
    from: '+61491570156',
    locale,
    text: smsText('Acme', code),
    voice: voiceScript('Acme', code, locale),
    mode: 'live',
    ...overrides,
  };
}
