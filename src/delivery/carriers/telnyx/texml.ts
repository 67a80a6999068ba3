// Renders a VoiceScript as TeXML (Telnyx's TwiML-compatible call markup), sent inline with the call.
// Verbs follow developers.telnyx.com/docs/voice/programmable-voice/texml-verbs: <Say voice language>,
// <Pause length> (whole seconds, 1-180), <Hangup/>.
import type { VoiceScript } from '../../voice-script.js';

/**
 * The voice for each destination locale. Amazon Polly neural voices speak the locale's own English where Polly
 * has one; Polly has no Canadian English voice, so en-CA uses Telnyx's premium `alice` voice, which takes
 * `language` as the accent.
 */
const VOICES: Record<string, { voice: string; language: string }> = {
  'en-AU': { voice: 'Polly.Olivia-Neural', language: 'en-AU' },
  'en-GB': { voice: 'Polly.Amy-Neural', language: 'en-GB' },
  'en-NZ': { voice: 'Polly.Aria-Neural', language: 'en-NZ' },
  'en-US': { voice: 'Polly.Joanna-Neural', language: 'en-US' },
  'en-CA': { voice: 'alice', language: 'en-CA' },
};

export function texmlVoiceFor(locale: string): { voice: string; language: string } {
  return VOICES[locale] ?? { voice: 'Polly.Joanna-Neural', language: 'en-US' };
}

const escapeXml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

export function toTexml(script: VoiceScript): string {
  const { voice, language } = texmlVoiceFor(script.locale);
  const say = (text: string) => `<Say voice="${voice}" language="${language}">${escapeXml(text)}</Say>`;
  const verbs = script.steps.map((step) => {
    if ('say' in step) return say(step.say);
    // Digits separated by commas are read one by one by every TTS engine, with no SSML needed.
    if ('digits' in step) return say(`${[...step.digits].join(', ')}.`);
    // <Pause> counts whole seconds, at least one.
    if ('pause' in step) return `<Pause length="${Math.max(1, Math.round(step.pause / 1000))}"/>`;
    return '<Hangup/>';
  });
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs.join('')}</Response>`;
}
