// The voice script as a Vonage NCCO: one talk action whose text is SSML (the string wrapped in <speak>, as
// developer.vonage.com "Customizing Spoken Text" requires). Digits are spoken one by one as separate, comma-
// separated tokens, which every SSML-capable voice reads digit by digit without relying on a say-as variant.
// There is no hangup action in NCCO: the call ends when the last action finishes (Voice API "NCCO reference").
import type { VoiceScript } from '../../voice-script.js';

export interface TalkAction {
  action: 'talk';
  text: string;
  language: string;
}

/**
 * Vonage TTS language codes (BCP-47) confirmed in the Voice API's language list: en-AU, en-GB, en-US. en-NZ
 * and en-CA are not confirmed there, so they take the nearest confirmed voice rather than risk a talk action
 * Vonage rejects (which would end the call in silence).
 */
const TTS_LANGUAGE: Record<string, string> = {
  'en-AU': 'en-AU',
  'en-NZ': 'en-AU',
  'en-GB': 'en-GB',
  'en-US': 'en-US',
  'en-CA': 'en-US',
};

export function ttsLanguageFor(locale: string): string {
  return TTS_LANGUAGE[locale] ?? 'en-US';
}

const escapeXml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

export function toNcco(script: VoiceScript): TalkAction[] {
  const parts = script.steps.flatMap((step) => {
    if ('say' in step) return [escapeXml(step.say)];
    if ('digits' in step) return [`${[...step.digits].map(escapeXml).join(', ')}.`];
    if ('pause' in step) return [`<break time="${Math.max(0, Math.round(step.pause))}ms"/>`];
    return []; // hangup: the NCCO simply ends here
  });
  return [
    { action: 'talk', text: `<speak>${parts.join(' ')}</speak>`, language: ttsLanguageFor(script.locale) },
  ];
}
