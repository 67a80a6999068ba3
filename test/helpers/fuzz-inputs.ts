// What test/http/fuzz.test.ts throws at the service: fast-check arbitraries for text (NUL, lone surrogates,
// full-width digits, controls, giant strings), numbers past a double, values nested thousands deep, request bodies
// (mostly near-valid, so that many reach the store, then mutated or chaotic), content types and URL segments.
import fc from 'fast-check';

/** JSON text that JSON.stringify writes as given: numbers no double holds (Node 22+). */
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

export const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

// --- text -------------------------------------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const fullWidthDigit = fc.integer({ min: 0xff10, max: 0xff19 }).map((c) => String.fromCharCode(c));
export const oddChar = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
  loneSurrogate,
  fullWidthDigit,
  fc.constantFrom('\u0000', '\u00a0', '\u200b', '\u202e', '\ufeff', '\ufffd', '😀', 'é', '%', '%00', '\\'),
  fc.constantFrom('"', "'", '/', '?', '#', '&', '=', '+', '..', '\r\n', '\t', ' '),
);
export const digitLike = fc.string({
  unit: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...'0123456789') },
    fullWidthDigit,
    fc.constantFrom(' ', '-', '\u0000', '٣'),
  ),
  maxLength: 12,
});
/** Past the 16 KiB body limit (413), or just under it. */
const giant = fc.integer({ min: 1, max: 20_000 }).map((n) => 'é'.repeat(n));
/** Printable text in any script, emoji included, but well-formed and without NUL: text the store takes. */
export const fairText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
export const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: oddChar, maxLength: 40 }) },
  { weight: 3, arbitrary: digitLike },
  { weight: 2, arbitrary: fairText },
  { weight: 1, arbitrary: giant },
);

// --- values -----------------------------------------------------------------------------------------------

const hugeNumber = fc
  .constantFrom(
    '1e400',
    '-1e400',
    '123456789012345678901234567890',
    '9007199254740993',
    '1e-400',
    '-0',
    '6.0',
  )
  .map((raw) => rawJson(raw));
export const number = fc.oneof(fc.integer(), fc.integer({ min: -2, max: 1000 }), fc.double(), hugeNumber);

/**
 * Nested thousands deep, as deep as a 16 KiB body allows (and deeper, for a 413). Written into the body as text
 * (JSON.stringify, like fast-check's printing of a counterexample, overflows the stack at such depths): the value
 * serialises to a marker that `payloadOf` replaces, and prints as its size.
 */
class Deep {
  constructor(
    readonly depth: number,
    readonly arrays: boolean,
  ) {}
  toJSON(): string {
    return `~deep:${this.depth}:${this.arrays ? 'arrays' : 'objects'}~`;
  }
  [fc.toStringMethod](): string {
    return `Deep(${this.depth} ${this.arrays ? 'arrays' : 'objects'})`;
  }
}
const DEEP_MARKER = /"~deep:(\d+):(arrays|objects)~"/g;
const deepText = (_: string, depth: string, kind: string) =>
  kind === 'arrays'
    ? `${'['.repeat(Number(depth))}1${']'.repeat(Number(depth))}`
    : `${'{"a":'.repeat(Number(depth))}1${'}'.repeat(Number(depth))}`;
export const deep = fc
  .tuple(fc.integer({ min: 1, max: 6000 }), fc.boolean())
  .map(([depth, arrays]) => new Deep(depth, arrays));

const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null));
/** Any JSON value: random types, up to three levels of arrays and objects, or one nested thousands deep. */
export const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'value' },
    { weight: 4, arbitrary: leaf },
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    { weight: 1, arbitrary: deep },
  ),
}));

// --- bodies -----------------------------------------------------------------------------------------------

/** What goes on the wire: a JSON value, or raw text that may not be JSON at all. */
export type Body = { json: unknown } | { raw: string };

export const payloadOf = (body: Body): string =>
  'raw' in body ? body.raw : String(JSON.stringify(body.json)).replace(DEEP_MARKER, deepText);

/**
 * Bodies for an endpoint: mostly `fair` ones (valid in shape, so they reach the operation), some of them with one
 * field replaced by anything or an unknown field added, then chaotic records of the endpoint's fields, any JSON
 * value, and raw text.
 */
export function bodyOf(
  fair: fc.Arbitrary<Record<string, unknown>>,
  fields: readonly string[],
): fc.Arbitrary<Body> {
  const field =
    fields.length === 0 ? text : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, text);
  const mutated = fc
    .tuple(fair, field, value)
    .map(([body, name, replacement]) => ({ ...body, [name]: replacement }));
  const chaotic = fc.dictionary(field, value, { maxKeys: fields.length + 1 });
  const raw = fc.oneof(text, fc.constantFrom('', '{', '{"phone":', 'null', '[]', '{"__proto__":{"x":1}}'));
  return fc.oneof(
    { weight: 5, arbitrary: fair.map((json) => ({ json })) },
    { weight: 3, arbitrary: mutated.map((json) => ({ json })) },
    { weight: 2, arbitrary: chaotic.map((json) => ({ json })) },
    { weight: 1, arbitrary: value.map((json) => ({ json })) },
    { weight: 1, arbitrary: raw.map((body) => ({ raw: body })) },
  );
}

export const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json; charset=latin1',
    'application/problem+json',
    'application/x-www-form-urlencoded',
    'text/plain',
    undefined,
  ),
);

// --- fields -----------------------------------------------------------------------------------------------

/** A mobile number libphonenumber accepts (+61 41…): sends reach the store and the delivery. */
export const mobile = fc.integer({ min: 0, max: 9_999_999 }).map((n) => `+6141${String(n).padStart(7, '0')}`);
export const phone = fc.oneof(
  { weight: 4, arbitrary: mobile },
  mobile.map((p) => `0${p.slice(3)}`),
  mobile.map((p) => p.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))),
  text,
);
export const country = fc.constantFrom('AU', 'US', 'GB', 'NZ', 'CA', 'au', 'FR', '');

export const SEND_FIELDS = [
  'phone',
  'country',
  'channel',
  'brand_name',
  'code_length',
  'ttl_seconds',
  'max_attempts',
  'metadata',
] as const;
/** A send in the documented shape, with Unicode everywhere text goes; most are accepted. */
export const fairSend = fc.record(
  {
    phone: mobile,
    country: fc.constantFrom('AU', 'US', 'GB', 'NZ', 'CA'),
    channel: fc.constantFrom('voice', 'sms'),
    brand_name: fairText,
    code_length: fc.integer({ min: 4, max: 8 }),
    ttl_seconds: fc.integer({ min: 60, max: 900 }),
    max_attempts: fc.integer({ min: 1, max: 10 }),
    metadata: fc.dictionary(fairText, fc.oneof(fairText, fc.integer(), fc.boolean(), fc.constant(null)), {
      maxKeys: 4,
    }),
  },
  { requiredKeys: ['phone'] },
);

export const CHECK_FIELDS = ['code', 'verification_id', 'phone', 'country'] as const;

/** Percent-encoded raw bytes: invalid UTF-8, overlong NUL (%C0%80), encoded surrogates and NUL itself. */
export const rawBytes = fc
  .uint8Array({ maxLength: 12 })
  .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

/** A URL path segment: encoded text, raw bytes, or raw characters for the URL parser to make sense of. */
export const segment = fc.oneof(
  text.map((s) => encodeURIComponent(s.toWellFormed())),
  rawBytes,
  fc.string({ unit: oddChar, maxLength: 30 }),
  fc.constantFrom('%', '%zz', '..', '.', '%2e%2e', '%2F', '%C0%80', '', 'x'.repeat(101)),
);
