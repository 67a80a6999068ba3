// TwiML-style call markup, shared by the carriers whose calls take it: the voice script as <Say>, <Pause> and <Hangup/>
// verbs, one voice for the whole call. Digits are spoken one by one ("1, 2, 3") so every voice reads them as
// digits, not as a number, with no SSML needed.
import type { VoiceScript } from '../voice-script.js';

export interface SayVoice {
  voice: string;
  language: string;
}

/**
 * Amazon Polly neural voices, which the carriers using this markup offer, for the locales we speak. Polly has an
 * English voice of its own for AU, GB, NZ and US; it has none for Canada, so each carrier decides en-CA.
 */
export const POLLY_VOICES: Readonly<Record<string, SayVoice>> = {
  'en-AU': { voice: 'Polly.Olivia-Neural', language: 'en-AU' },
  'en-GB': { voice: 'Polly.Amy-Neural', language: 'en-GB' },
  'en-NZ': { voice: 'Polly.Aria-Neural', language: 'en-NZ' },
  'en-US': { voice: 'Polly.Joanna-Neural', language: 'en-US' },
};

const escapeXml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

/** `<Response>` with the script's verbs. <Pause length> counts whole seconds, at least one. */
export function toSayMarkup(script: VoiceScript, { voice, language }: SayVoice): string {
  const say = (text: string) =>
    `<Say voice="${escapeXml(voice)}" language="${escapeXml(language)}">${escapeXml(text)}</Say>`;
  const verbs = script.steps.map((step) => {
    if ('say' in step) return say(step.say);
    if ('digits' in step) return say(`${[...step.digits].join(', ')}.`);
    if ('pause' in step) return `<Pause length="${Math.max(1, Math.round(step.pause / 1000))}"/>`;
    return '<Hangup/>';
  });
  return `<Response>${verbs.join('')}</Response>`;
}
