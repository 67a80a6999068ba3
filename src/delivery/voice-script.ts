// The voice call's script: the code read digit by digit, twice, then the call hangs up. Kept as a small
// structure so each carrier gets its own markup (SSML here) and the outbox gets the words a person hears.
export type VoiceStep = { say: string } | { digits: string } | { pause: number } | { hangup: true };

export interface VoiceScript {
  locale: string;
  steps: VoiceStep[];
}

export function voiceScript(brandName: string, code: string, locale: string): VoiceScript {
  return {
    locale,
    steps: [
      { say: `Hello. This is ${brandName}. Your verification code is:` },
      { digits: code },
      { pause: 800 },
      { say: 'Again, your code is:' },
      { digits: code },
      { pause: 500 },
      { say: 'Goodbye.' },
      { hangup: true },
    ],
  };
}

const escapeXml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

/** SSML, as a text-to-speech engine takes it. */
export function toSsml(script: VoiceScript): string {
  const parts = script.steps.map((step) => {
    if ('say' in step) return escapeXml(step.say);
    if ('digits' in step) return `<say-as interpret-as="digits">${step.digits}</say-as>`;
    if ('pause' in step) return `<break time="${step.pause}ms"/>`;
    return '';
  });
  return `<speak xml:lang="${script.locale}">${parts.filter(Boolean).join(' ')}</speak>`;
}

/** The words the person hears, digits read one by one: what the development outbox shows. */
export function toSpokenText(script: VoiceScript): string {
  const parts = script.steps.flatMap((step) => {
    if ('say' in step) return [step.say];
    if ('digits' in step) return [`${[...step.digits].join(', ')}.`];
    if ('hangup' in step) return ['[hangs up]'];
    return [];
  });
  return parts.join(' ');
}

const LOCALES: Record<string, string> = { AU: 'en-AU', US: 'en-US', GB: 'en-GB', NZ: 'en-NZ', CA: 'en-CA' };

export function localeFor(country: string): string {
  return LOCALES[country] ?? 'en-US';
}
