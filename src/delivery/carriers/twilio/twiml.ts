// The voice script as inline TwiML for the Calls API's `Twiml` parameter (twilio.com/docs/voice/twiml/say,
// /pause, /hangup). Digits are spoken one by one ("1, 2, 3") so every voice reads them as digits, not a number.
import type { VoiceScript } from '../../voice-script.js';

const escapeXml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

/** <Pause length> takes whole seconds; a short pause in the script still gets one. */
const pauseSeconds = (ms: number) => Math.max(1, Math.round(ms / 1000));

export function toTwiml(script: VoiceScript, locale: string = script.locale): string {
  const say = (text: string) => `<Say language="${escapeXml(locale)}">${escapeXml(text)}</Say>`;
  const verbs = script.steps.map((step) => {
    if ('say' in step) return say(step.say);
    if ('digits' in step) return say(`${[...step.digits].join(', ')}.`);
    if ('pause' in step) return `<Pause length="${pauseSeconds(step.pause)}"/>`;
    return '<Hangup/>';
  });
  return `<Response>${verbs.join('')}</Response>`;
}
