// One declaration per request and response: types, validation, serialisation and OpenAPI all come from here.
// The named ones (an `$id`) are the OpenAPI document's components: app.ts registers them, routes `ref` them.
import { type Static, Type } from 'typebox';
import { ref } from '../http/named-schema.js';
import { CHANNELS } from '../vocabulary/channels.js';
import { SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';
import { MODES } from '../vocabulary/modes.js';
import { STATUSES } from '../vocabulary/statuses.js';

const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC, milliseconds' });
const Status = Type.Enum([...STATUSES]);
const Channel = Type.Enum([...CHANNELS]);
const CountryParam = Type.Enum([...SUPPORTED_COUNTRIES], {
  description: 'Country of a national-format `phone`; ignored when `phone` is E.164.',
});

/** The examples of the document: an SMS code to an Australian mobile, as the service answers it. */
const EXAMPLE_ID = 'ver_0VbvA1b2C3d4E5f6G7h8I9j0';
const EXAMPLE_DELIVERY = {
  ok: true,
  channel: 'sms',
  provider_id: 'SM8a3f6c1e2b4d4f0e9a7c5b3d1e2f4a6c',
  from_number: '+61491570157',
  error_code: null,
  error_message: null,
};
export const VERIFICATION_EXAMPLE = {
  id: EXAMPLE_ID,
  status: 'pending',
  channel: 'sms',
  phone: '+61491570156',
  attempts: 0,
  max_attempts: 5,
  expires_at: '2026-11-24T22:15:00.000Z',
  verified_at: null,
  created_at: '2026-11-24T22:10:00.000Z',
  delivery: EXAMPLE_DELIVERY,
  metadata: { user_id: 'u_1234' },
  mode: 'live',
};

export const Delivery = Type.Object(
  {
    ok: Type.Boolean({ description: 'Whether delivery was handed over' }),
    channel: Channel,
    provider_id: Type.Union([Type.String(), Type.Null()], { description: 'The delivery at the provider' }),
    from_number: Type.String({ description: 'E.164 number the code came from' }),
    error_code: Type.Union([Type.String(), Type.Null()]),
    error_message: Type.Union([Type.String(), Type.Null()]),
  },
  {
    $id: 'Delivery',
    description: 'Delivery diagnostics: informational, may change; do not branch on them.',
    examples: [EXAMPLE_DELIVERY],
  },
);

export const Verification = Type.Object(
  {
    id: Type.String({ examples: [EXAMPLE_ID] }),
    status: Status,
    channel: Channel,
    phone: Type.String({ description: 'E.164' }),
    attempts: Type.Integer(),
    max_attempts: Type.Integer(),
    expires_at: Timestamp,
    verified_at: Type.Union([Timestamp, Type.Null()]),
    created_at: Timestamp,
    delivery: ref(Delivery),
    metadata: Type.Object({}, { additionalProperties: true }),
    mode: Type.Enum([...MODES], {
      description:
        'The mode of the key that sent it: `test` codes never reach a carrier (docs/api.md, "Test mode")',
    }),
  },
  { $id: 'Verification', examples: [VERIFICATION_EXAMPLE] },
);

/** A canceled verification: the example of the cancel's answer. */
export const CANCELED_EXAMPLE = { ...VERIFICATION_EXAMPLE, status: 'canceled' };
export type Verification = Static<typeof Verification>;

/** The longest a code lives: the overview's roll-ups wait this long before an hour can no longer change. */
export const MAX_TTL_SECONDS = 900;

export const SendBody = Type.Object(
  {
    phone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'E.164, or a national number with `country`',
    }),
    country: Type.Optional(CountryParam),
    channel: Type.Optional(Channel),
    brand_name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    code_length: Type.Optional(Type.Integer({ minimum: 4, maximum: 8, default: 6 })),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_TTL_SECONDS, default: 300 })),
    max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 5 })),
    metadata: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: 'Opaque JSON object, at most 4 KiB serialised' },
      ),
    ),
  },
  {
    $id: 'SendRequest',
    additionalProperties: false,
    // The pre-filled body of Swagger UI's "Try it out": it succeeds for a workspace with a mobile number.
    examples: [{ phone: '+61491570156', channel: 'sms' }],
  },
);
export type SendBody = Static<typeof SendBody>;

/** Idempotency-Key: 1 to 255 printable ASCII characters, spaces only between others (docs/api.md). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_KEY_PATTERN = /^[!-~](?:[ -~]*[!-~])?$/;

export const SendHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      pattern: IDEMPOTENCY_KEY_PATTERN.source,
      description:
        'Makes a retried send safe: the same key with the same body within 24 hours answers what the first request was answered (with `Idempotent-Replayed: true`) and sends nothing. Keys belong to the workspace. A UUID is a good key.',
      examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
    }),
  ),
});

export const CheckBody = Type.Object(
  {
    code: Type.String({ maxLength: 64, description: 'Non-digits are stripped before comparing' }),
    verification_id: Type.Optional(Type.String({ maxLength: 64 })),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    country: Type.Optional(CountryParam),
  },
  {
    $id: 'CheckRequest',
    additionalProperties: false,
    description: 'Give exactly one of `verification_id` (preferred) and `phone`.',
    examples: [{ verification_id: EXAMPLE_ID, code: '381924' }],
  },
);
export type CheckBody = Static<typeof CheckBody>;

/** The check's answers, by what happened: the examples of CheckResult, and of the check's 200 by name. */
export const CHECK_EXAMPLES = {
  verified: {
    summary: 'The right code',
    value: { id: EXAMPLE_ID, status: 'verified', verified: true, verified_at: '2026-11-24T22:11:42.318Z' },
  },
  wrong_code: {
    summary: 'A wrong code, with attempts left',
    value: { id: EXAMPLE_ID, status: 'pending', verified: false, attempts: 1, attempts_remaining: 4 },
  },
};

export const CheckResult = Type.Object(
  {
    id: Type.String(),
    status: Status,
    verified: Type.Boolean(),
    verified_at: Type.Optional(Timestamp),
    attempts: Type.Optional(Type.Integer()),
    attempts_remaining: Type.Optional(Type.Integer()),
  },
  {
    $id: 'CheckResult',
    description: 'A wrong code is not an error: `verified` is false, with the attempts made and left.',
    examples: Object.values(CHECK_EXAMPLES).map((e) => e.value),
  },
);
export type CheckResult = Static<typeof CheckResult>;

export const IdParams = Type.Object({
  id: Type.String({ description: 'The verification id the send answered', examples: [EXAMPLE_ID] }),
});
