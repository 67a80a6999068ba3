// The channels a code travels on: the one list the table types, the API schemas and channel eligibility use.
export const CHANNELS = ['voice', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];
