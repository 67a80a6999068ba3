// The API description: GET /openapi.json is an OpenAPI 3.1 document of the five /v1 endpoints (spec section 4)
// with their request and response schemas, and GET /docs serves it as an HTML page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

type Schema = {
  $ref?: string;
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
};
type Operation = {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema & { minLength?: number } }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
};
type Document = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: {
    securitySchemes?: Record<string, Record<string, string>>;
    schemas?: Record<string, Schema>;
  };
  security?: Record<string, unknown>[];
};

const VERIFICATION_FIELDS = [
  'id',
  'status',
  'channel',
  'phone',
  'attempts',
  'max_attempts',
  'expires_at',
  'verified_at',
  'created_at',
  'delivery',
  'metadata',
  'mode',
];
const PROBLEM_FIELDS = ['type', 'title', 'status', 'detail', 'code', 'request_id'];

describe('OpenAPI document and docs page', () => {
  let t: TestApp;
  let doc: Document;

  const op = (path: string, method: string): Operation => {
    const o = doc.paths[path]?.[method];
    assert.ok(o, `${method.toUpperCase()} ${path} is documented`);
    return o;
  };
  /** A schema, or the named component its `$ref` points to (schemas are named: see openapi-generators.test.ts). */
  const resolved = (schema: Schema | undefined): Schema | undefined => {
    if (schema?.$ref === undefined) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const component = doc.components?.schemas?.[name];
    assert.ok(component, `${schema.$ref} is a component`);
    return component;
  };
  const jsonSchema = (content: Record<string, { schema: Schema }> | undefined): Schema => {
    const schema = resolved(content?.['application/json']?.schema);
    assert.ok(schema, 'an application/json schema');
    return schema;
  };

  before(async () => {
    t = await createTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json() as Document;
  });
  after(() => t.close());

  test('GET /openapi.json needs no key and is OpenAPI 3.1.x', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
  });

  test('lists exactly the five /v1 paths of spec section 4 with their methods', () => {
    assert.deepEqual(
      Object.keys(doc.paths).sort(),
      ['/v1/otp/check', '/v1/otp/send', '/v1/otp/{id}', '/v1/otp/{id}/cancel', '/v1/ping'].sort(),
    );
    assert.deepEqual(Object.keys(doc.paths['/v1/ping'] ?? {}), ['get']);
    assert.deepEqual(Object.keys(doc.paths['/v1/otp/send'] ?? {}), ['post']);
    assert.deepEqual(Object.keys(doc.paths['/v1/otp/check'] ?? {}), ['post']);
    assert.deepEqual(Object.keys(doc.paths['/v1/otp/{id}'] ?? {}), ['get']);
    assert.deepEqual(Object.keys(doc.paths['/v1/otp/{id}/cancel'] ?? {}), ['post']);
  });

  test('GET /v1/ping: 200 is the ping result (ok, workspace_id, key_name, scopes)', () => {
    const schema = jsonSchema(op('/v1/ping', 'get').responses['200']?.content);
    assert.deepEqual(schema.required?.slice().sort(), ['key_name', 'ok', 'scopes', 'workspace_id']);
    assert.equal(schema.properties?.ok?.type, 'boolean');
    assert.equal(schema.properties?.scopes?.type, 'array');
  });

  test('POST /v1/otp/send: the request body lists every field with its bounds and defaults', () => {
    const o = op('/v1/otp/send', 'post');
    const body = jsonSchema(o.requestBody?.content);
    assert.deepEqual(body.required, ['phone']);
    assert.equal(body.additionalProperties, false);
    const p = body.properties ?? {};
    assert.deepEqual(Object.keys(p).sort(), [
      'brand_name',
      'channel',
      'code_length',
      'country',
      'max_attempts',
      'metadata',
      'phone',
      'ttl_seconds',
    ]);
    assert.deepEqual(p.channel?.enum, ['voice', 'sms']);
    assert.deepEqual(p.country?.enum, ['AU', 'US', 'CA', 'GB', 'NZ']);
    assert.equal(p.brand_name?.maxLength, 60);
    assert.deepEqual([p.code_length?.minimum, p.code_length?.maximum, p.code_length?.default], [4, 8, 6]);
    assert.deepEqual(
      [p.ttl_seconds?.minimum, p.ttl_seconds?.maximum, p.ttl_seconds?.default],
      [60, 900, 300],
    );
    assert.deepEqual([p.max_attempts?.minimum, p.max_attempts?.maximum, p.max_attempts?.default], [1, 10, 5]);
    assert.equal(p.metadata?.type, 'object');
  });

  test('POST /v1/otp/send: 201 is a Verification with every field of spec section 2, and no code', () => {
    const schema = jsonSchema(op('/v1/otp/send', 'post').responses['201']?.content);
    assert.deepEqual(schema.required?.slice().sort(), VERIFICATION_FIELDS.slice().sort());
    assert.equal('code' in (schema.properties ?? {}), false);
    assert.deepEqual(schema.properties?.status?.enum, [
      'pending',
      'verified',
      'expired',
      'failed',
      'undelivered',
      'canceled',
    ]);
    const delivery = resolved(schema.properties?.delivery);
    assert.deepEqual(delivery?.required?.slice().sort(), [
      'channel',
      'error_code',
      'error_message',
      'from_number',
      'ok',
      'provider_id',
    ]);
  });

  test('POST /v1/otp/send: the optional Idempotency-Key header, its bounds, and its 409 and 422 answers', () => {
    const o = op('/v1/otp/send', 'post');
    const header = o.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    assert.ok(header, 'send documents Idempotency-Key');
    assert.notEqual(header.required, true);
    assert.deepEqual([header.schema?.minLength, header.schema?.maxLength], [1, 255]);
    assert.match(o.responses['409']?.description ?? '', /idempotency_key_in_use/);
    assert.match(o.responses['422']?.description ?? '', /idempotency_key_reused/);
  });

  test('POST /v1/otp/send: the 403 names destination_blocked and each of its reasons', () => {
    const o = op('/v1/otp/send', 'post');
    const text = `${o.description ?? ''} ${o.responses['403']?.description ?? ''}`;
    for (const word of [
      'destination_blocked',
      'number_type',
      'range_velocity',
      'low_conversion',
      'Retry-After',
    ]) {
      assert.match(text, new RegExp(word), word);
    }
  });

  test('POST /v1/otp/check: code required; verification_id, phone, country optional; 200 the check result', () => {
    const o = op('/v1/otp/check', 'post');
    const body = jsonSchema(o.requestBody?.content);
    assert.deepEqual(body.required, ['code']);
    assert.equal(body.additionalProperties, false);
    assert.deepEqual(Object.keys(body.properties ?? {}).sort(), [
      'code',
      'country',
      'phone',
      'verification_id',
    ]);
    const result = jsonSchema(o.responses['200']?.content);
    assert.deepEqual(result.required?.slice().sort(), ['id', 'status', 'verified']);
    assert.deepEqual(Object.keys(result.properties ?? {}).sort(), [
      'attempts',
      'attempts_remaining',
      'id',
      'status',
      'verified',
      'verified_at',
    ]);
  });

  test('GET /v1/otp/{id} and POST /v1/otp/{id}/cancel: path parameter id, 200 the full Verification', () => {
    for (const [path, method] of [
      ['/v1/otp/{id}', 'get'],
      ['/v1/otp/{id}/cancel', 'post'],
    ] as const) {
      const o = op(path, method);
      const id = o.parameters?.find((p) => p.name === 'id');
      assert.ok(id, `${path} documents id`);
      assert.equal(id.in, 'path');
      assert.equal(id.required, true);
      const schema = jsonSchema(o.responses['200']?.content);
      assert.deepEqual(schema.required?.slice().sort(), VERIFICATION_FIELDS.slice().sort());
    }
  });

  test('every operation documents 401, and the otp operations 403, as problem details', () => {
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, o] of Object.entries(methods)) {
        const statuses = path === '/v1/ping' ? ['401', '429'] : ['401', '403', '429'];
        for (const status of statuses) {
          const response = o.responses[status];
          assert.ok(response, `${method} ${path} documents ${status}`);
          const schema = resolved(Object.values(response.content ?? {})[0]?.schema);
          assert.ok(schema, `${method} ${path} ${status} has a schema`);
          assert.deepEqual(schema.required?.slice().sort(), PROBLEM_FIELDS.slice().sort());
        }
      }
    }
    for (const path of ['/v1/otp/{id}', '/v1/otp/check']) {
      const o = doc.paths[path];
      const method = path === '/v1/otp/check' ? 'post' : 'get';
      assert.ok(o?.[method]?.responses['404'], `${path} documents 404`);
    }
    for (const status of ['400', '409', '413', '415']) {
      assert.ok(op('/v1/otp/send', 'post').responses[status], `send documents ${status}`);
    }
  });

  test('error responses are documented as application/problem+json, the media type they are sent with', () => {
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, o] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(o.responses)) {
          if (Number(status) < 400) continue;
          assert.deepEqual(
            Object.keys(response.content ?? {}),
            ['application/problem+json'],
            `${method} ${path} ${status}`,
          );
        }
      }
    }
  });

  test('both ways of sending the key are documented: Bearer and X-API-Key', () => {
    const schemes = Object.values(doc.components?.securitySchemes ?? {});
    assert.ok(schemes.some((s) => s.type === 'http' && s.scheme === 'bearer'));
    assert.ok(schemes.some((s) => s.type === 'apiKey' && s.in === 'header' && s.name === 'X-API-Key'));
    assert.ok((doc.security ?? []).length >= 2);
  });

  test('the document is the same on every request', async () => {
    const again = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.deepEqual(again.json(), doc);
  });

  test('GET /docs serves an HTML page (following redirects)', async () => {
    let url = '/docs';
    let res = await t.app.inject({ method: 'GET', url });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      const location = res.headers.location;
      assert.ok(location, 'a redirect carries Location');
      url = new URL(String(location), `http://localhost${url}`).pathname;
      res = await t.app.inject({ method: 'GET', url });
    }
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
  });

  test('GET / leads to the dashboard (dashboard issue: "/ redirecting there")', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    assert.ok(res.statusCode >= 300 && res.statusCode < 400, String(res.statusCode));
    assert.equal(res.headers.location, '/dashboard');
  });
});
