// Renders a VoiceScript as TeXML (Telnyx's TwiML-compatible call markup), sent inline with the call.
// Verbs follow developers.telnyx.com/docs/voice/programmable-voice/texml-verbs: <Say voice language>,
// <Pause length> (whole seconds, 1-180), <Hangup/>.
import type { VoiceScript } from '../../voice-script.js';
import { POLLY_VOICES, type SayVoice, toSayMarkup } from '../say-markup.js';

/** Polly has no Canadian English voice; Telnyx's premium `alice` voice takes `language` as the accent. */
const TELNYX_EN_CA: SayVoice = { voice: 'alice', language: 'en-CA' };

export function texmlVoiceFor(locale: string): SayVoice {
  if (locale === 'en-CA') return TELNYX_EN_CA;
  return POLLY_VOICES[locale] ?? (POLLY_VOICES['en-US'] as SayVoice);
}

export function toTexml(script: VoiceScript): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${toSayMarkup(script, texmlVoiceFor(script.locale))}`;
}
