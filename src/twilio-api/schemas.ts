// The Twilio-compatible API's requests (form parameters, named as Twilio names them) and resources (the fields of
// Twilio's Verify v2 OpenAPI description, twilio_verify_v2.json). Parameters Twilio has and phone-verify does not
// carry (CustomCode, CustomMessage, Amount, …) are refused by name, never ignored: each would change what is sent.
import { type Static, Type } from 'typebox';

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Timestamp = Type.String({ format: 'date-time' });

export const ServiceParams = Type.Object({ ServiceSid: Type.String({ maxLength: 64 }) });
export const VerificationParams = Type.Object({
  ServiceSid: Type.String({ maxLength: 64 }),
  Sid: Type.String({ maxLength: 64, description: 'A VE… SID, a ver_… id, or the number (To)' }),
});

/** The channels we carry, by Twilio's names; email, whatsapp, sna and auto are refused (never another channel). */
export const TWILIO_CHANNELS = ['sms', 'call'] as const;
export type TwilioChannel = (typeof TWILIO_CHANNELS)[number];

export const CreateVerificationForm = Type.Object(
  {
    To: Text(64),
    Channel: Type.Enum([...TWILIO_CHANNELS]),
    CustomFriendlyName: Type.Optional(Text(60)),
    Locale: Type.Optional(Text(16)),
  },
  { additionalProperties: false },
);
export type CreateVerificationForm = Static<typeof CreateVerificationForm>;

export const CheckForm = Type.Object(
  {
    Code: Text(64),
    To: Type.Optional(Text(64)),
    VerificationSid: Type.Optional(Text(64)),
  },
  { additionalProperties: false },
);
export type CheckForm = Static<typeof CheckForm>;

export const UpdateForm = Type.Object({ Status: Text(32) }, { additionalProperties: false });

export const TWILIO_STATUSES = [
  'pending',
  'approved',
  'canceled',
  'max_attempts_reached',
  'failed',
  'expired',
] as const;
export type TwilioStatus = (typeof TWILIO_STATUSES)[number];

const SendCodeAttempt = Type.Object({
  attempt_sid: Type.String(),
  channel: Type.Enum([...TWILIO_CHANNELS]),
  time: Timestamp,
});

const Carrier = Type.Object({
  error_code: Type.Null(),
  name: Type.Null(),
  mobile_country_code: Type.Null(),
  mobile_network_code: Type.Null(),
  type: Type.Null(),
});

export const TwilioVerification = Type.Object({
  sid: Type.String(),
  service_sid: Type.String(),
  account_sid: Type.String(),
  to: Type.String(),
  channel: Type.Enum([...TWILIO_CHANNELS]),
  status: Type.Enum([...TWILIO_STATUSES]),
  valid: Type.Boolean(),
  lookup: Type.Object({ carrier: Carrier }),
  amount: Type.Null(),
  payee: Type.Null(),
  send_code_attempts: Type.Array(SendCodeAttempt),
  date_created: Timestamp,
  date_updated: Timestamp,
  sna: Type.Null(),
  url: Type.String(),
});
export type TwilioVerification = Static<typeof TwilioVerification>;

export const TwilioVerificationCheck = Type.Object({
  sid: Type.String(),
  service_sid: Type.String(),
  account_sid: Type.String(),
  to: Type.String(),
  channel: Type.Enum([...TWILIO_CHANNELS]),
  status: Type.Enum([...TWILIO_STATUSES]),
  valid: Type.Boolean(),
  amount: Type.Null(),
  payee: Type.Null(),
  date_created: Timestamp,
  date_updated: Timestamp,
  sna_attempts_error_codes: Type.Null(),
});
export type TwilioVerificationCheck = Static<typeof TwilioVerificationCheck>;

export const TwilioService = Type.Object({
  sid: Type.String(),
  account_sid: Type.String(),
  friendly_name: Type.String(),
  code_length: Type.Integer(),
  lookup_enabled: Type.Boolean(),
  psd2_enabled: Type.Boolean(),
  skip_sms_to_landlines: Type.Boolean(),
  dtmf_input_required: Type.Boolean(),
  tts_name: Type.Null(),
  do_not_share_warning_enabled: Type.Boolean(),
  custom_code_enabled: Type.Boolean(),
  push: Type.Null(),
  totp: Type.Null(),
  default_template_sid: Type.Null(),
  whatsapp: Type.Null(),
  verify_event_subscription_enabled: Type.Boolean(),
  date_created: Timestamp,
  date_updated: Timestamp,
  url: Type.String(),
  links: Type.Object({ verifications: Type.String(), verification_checks: Type.String() }),
});
export type TwilioService = Static<typeof TwilioService>;
