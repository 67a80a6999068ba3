// The voice script as inline TwiML for the Calls API's `Twiml` parameter (twilio.com/docs/voice/twiml/say,
// /pause, /hangup). Twilio warns that a voice and language it does not pair may make <Say> fail, so each
// locale names a voice Twilio lists for it (twilio.com/docs/voice/twiml/say/text-speech).
import type { VoiceScript } from '../../voice-script.js';
import { POLLY_VOICES, type SayVoice, toSayMarkup } from '../say-markup.js';

/** Twilio has no Canadian English voice: en-CA calls speak US English, the nearest accent. */
export function twilioVoiceFor(locale: string): SayVoice {
  return POLLY_VOICES[locale] ?? (POLLY_VOICES['en-US'] as SayVoice);
}

export function toTwiml(script: VoiceScript, locale: string = script.locale): string {
  return toSayMarkup(script, twilioVoiceFor(locale));
}
