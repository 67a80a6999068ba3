// One declaration per request and response: types, validation, serialisation and OpenAPI all come from here.
import { type Static, Type } from 'typebox';
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

export const Delivery = Type.Object(
  {
    ok: Type.Boolean({ description: 'Whether delivery was handed over' }),
    channel: Channel,
    provider_id: Type.Union([Type.String(), Type.Null()], { description: 'The delivery at the provider' }),
    from_number: Type.String({ description: 'E.164 number the code came from' }),
    error_code: Type.Union([Type.String(), Type.Null()]),
    error_message: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'Delivery diagnostics: informational, may change; do not branch on them.' },
);

export const Verification = Type.Object({
  id: Type.String({ examples: ['ver_3kTMd9Qx2LbV7nRpW4aYc8Fz'] }),
  status: Status,
  channel: Channel,
  phone: Type.String({ description: 'E.164' }),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  expires_at: Timestamp,
  verified_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  delivery: Delivery,
  metadata: Type.Object({}, { additionalProperties: true }),
  mode: Type.Enum([...MODES], {
    description:
      'The mode of the key that sent it: `test` codes never reach a carrier (docs/api.md, "Test mode")',
  }),
});
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
  { additionalProperties: false },
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
    additionalProperties: false,
    description: 'Give exactly one of `verification_id` (preferred) and `phone`.',
  },
);
export type CheckBody = Static<typeof CheckBody>;

export const CheckResult = Type.Object({
  id: Type.String(),
  status: Status,
  verified: Type.Boolean(),
  verified_at: Type.Optional(Timestamp),
  attempts: Type.Optional(Type.Integer()),
  attempts_remaining: Type.Optional(Type.Integer()),
});
export type CheckResult = Static<typeof CheckResult>;

export const IdParams = Type.Object({ id: Type.String() });
