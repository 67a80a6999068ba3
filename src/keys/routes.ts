// GET /v1/ping: free, no side effects; tells key problems apart from delivery problems.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ref } from '../http/named-schema.js';
import { ANY_REQUEST_ERRORS, type ErrorResponses } from '../http/responses.js';
import { ADMISSION_ERRORS, principalOf } from './auth-hook.js';

export const PingResult = Type.Object(
  {
    ok: Type.Boolean({ description: 'true when the key works' }),
    workspace_id: Type.String(),
    key_name: Type.String(),
    scopes: Type.Array(Type.String()),
  },
  {
    $id: 'PingResult',
    examples: [
      { ok: true, workspace_id: 'ws_0VbvA1b2C3d4E5f6G7h8I9j2', key_name: 'signup backend', scopes: ['otp'] },
    ],
  },
);

export const pingRoutes =
  (errors: ErrorResponses): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/ping',
      {
        schema: {
          operationId: 'ping',
          summary: 'Check an API key',
          description:
            'Free and without side effects: the first request to make, to tell key problems from delivery problems.',
          tags: ['Keys'],
          response: {
            200: ref(PingResult, 'The key works: its workspace, name and scopes'),
            ...errors(...ANY_REQUEST_ERRORS, ...ADMISSION_ERRORS),
          },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return {
          ok: true,
          workspace_id: principal.workspaceId,
          key_name: principal.keyName,
          scopes: [...principal.scopes],
        };
      },
    );
  };
