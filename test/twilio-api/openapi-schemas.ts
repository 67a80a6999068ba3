// The Twilio OpenAPI document's own schemas of the resources (a vendored subset, fixtures/), compiled once: each
// response body the facade sends is checked against the schema Twilio publishes for it, patterns of SIDs included.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const document = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'twilio-verify-v2-schemas.json'), 'utf8'),
) as { components: { schemas: Record<string, object> } };

/**
 * OpenAPI 3.0's `nullable` on a schema with no `type` (any value, null included) has nothing to widen: JSON Schema
 * says the same without it, and Ajv takes `nullable` only beside a `type`. Everything else is read as written.
 */
function withoutTypelessNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTypelessNullable);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).filter(([k]) => !(k === 'nullable' && !('type' in value)));
  return Object.fromEntries(entries.map(([k, v]) => [k, withoutTypelessNullable(v)]));
}

// OpenAPI 3.0: `nullable` is its keyword; `x-twilio` and the `uri-map` format are Twilio's annotations.
const ajv = new Ajv({ strict: false, allErrors: true, formats: { 'uri-map': true } });
const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
addFormats(ajv);
ajv.addSchema(
  withoutTypelessNullable({ components: document.components }) as object,
  'twilio_verify_v2.json',
);

export type TwilioResource =
  | 'verify.v2.service'
  | 'verify.v2.service.verification'
  | 'verify.v2.service.verification_check';

/** Asserts that `body` is valid by the OpenAPI document's schema of `resource`, and holds every field it names. */
export function assertTwilioSchema(resource: TwilioResource, body: unknown): void {
  const validate = ajv.getSchema(`twilio_verify_v2.json#/components/schemas/${resource}`);
  assert.ok(validate, `no schema ${resource}`);
  assert.ok(
    validate(body),
    `${resource}: ${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body)}`,
  );
  const properties = Object.keys(
    (document.components.schemas[resource] as { properties: Record<string, unknown> }).properties,
  );
  assert.deepEqual(Object.keys(body as object).sort(), properties.sort(), `${resource}: the fields`);
}
