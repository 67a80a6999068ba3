// The OpenAPI document's frame (@fastify/swagger's options) and its named schemas. The operations come from the
// routes' schemas; each schema with an `$id` registered here is a component of that name (`#/components/schemas/
// Verification`), referenced by the routes (http/named-schema.ts `ref`). docs/api.md, "The OpenAPI document".
import type { SwaggerOptions } from '@fastify/swagger';
import type { TSchema } from 'typebox';
import { addMediaExamples } from './http/media-examples.js';
import { Problem } from './http/problem.js';
import { KEY_PREFIX } from './keys/key-format.js';
import { PingResult } from './keys/routes.js';
import {
  CheckBody,
  CheckResult,
  Delivery,
  SendBody,
  VERIFICATION_EXAMPLE,
  Verification,
} from './verification/schemas.js';
import { VERSION } from './version.js';
import { webhookDocs } from './webhooks/openapi.js';

/** The named schemas, registered once on the app (app.addSchema) before any route. */
export const API_SCHEMAS: readonly TSchema[] = [
  Delivery,
  Verification,
  SendBody,
  CheckBody,
  CheckResult,
  PingResult,
  Problem,
];

export function openapiOptions(publicUrl: string): SwaggerOptions {
  return {
    // A named schema is its component under its own name (the default would be `def-0`, `def-1`, …).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'phone-verify',
        version: VERSION,
        description:
          'One-time codes by voice call or SMS. Errors are RFC 9457 problem details; branch on `code`. ' +
          `Every code, what it means and what to do: [the errors reference](${publicUrl}/docs/errors). ` +
          'See docs/api.md for every decision.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl }],
      tags: [
        { name: 'Verifications', description: 'Send a code, check it, read or cancel a verification.' },
        { name: 'Keys', description: 'Check that an API key works, before anything else.' },
        {
          name: 'Webhooks',
          description: "What phone-verify sends to a workspace's webhook endpoints (docs/webhooks.md).",
        },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: `An API key: ${KEY_PREFIX}…` },
          apiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: `An API key: ${KEY_PREFIX}…`,
          },
        },
      },
      security: [{ bearer: [] }, { apiKeyHeader: [] }],
      webhooks: webhookDocs(VERIFICATION_EXAMPLE),
    },
    transformObject: (document) =>
      addMediaExamples('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  };
}
