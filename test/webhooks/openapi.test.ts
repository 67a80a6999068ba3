// The OpenAPI document describes the webhooks (OpenAPI 3.1 `webhooks`): one POST per event type, its three
// signature headers, and a body whose `data` is the Verification that GET /v1/otp/{id} answers with.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WEBHOOK_EVENT_TYPES } from '../../src/vocabulary/webhook-events.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; const?: unknown };
type Doc = {
  openapi: string;
  components: { schemas: Record<string, Schema> };
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  webhooks: Record<
    string,
    {
      post: {
        parameters: { name: string; in: string; required: boolean }[];
        requestBody: { content: Record<string, { schema: Schema }> };
        responses: Record<string, unknown>;
      };
    }
  >;
};

let t: TestApp;
let doc: Doc;
before(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
});
after(() => t.close());

test('every event type is a webhook with the Standard Webhooks headers and the Verification as data', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...WEBHOOK_EVENT_TYPES].sort());
  const get = doc.paths['/v1/otp/{id}']?.get?.responses['200']?.content?.['application/json']?.schema;
  // The one named Verification (test/http/openapi-generators.test.ts), which GET answers with and `data` refers to.
  assert.equal(get?.$ref, '#/components/schemas/Verification');
  const verification = doc.components.schemas.Verification;
  assert.ok(verification?.properties);
  for (const type of WEBHOOK_EVENT_TYPES) {
    const post = doc.webhooks[type]?.post;
    assert.ok(post, type);
    assert.deepEqual(
      post.parameters.map((p) => [p.name, p.in, p.required]),
      [
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ],
    );
    const body = post.requestBody.content['application/json']?.schema;
    assert.deepEqual(body?.required?.sort(), ['data', 'timestamp', 'type']);
    assert.equal(body?.properties?.type?.const, type);
    assert.equal(body?.properties?.data?.$ref, get.$ref);
    assert.ok(post.responses['2XX']);
  }
});
