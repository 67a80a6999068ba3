// GET /v1/ping: free, no side effects; tells key problems apart from delivery problems.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/responses.js';
import { principalOf } from './auth-hook.js';

const PingResult = Type.Object({
  ok: Type.Boolean({ description: 'true when the key works' }),
  workspace_id: Type.String(),
  key_name: Type.String(),
  scopes: Type.Array(Type.String()),
});

export const pingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/ping',
    {
      schema: {
        summary: 'Check an API key',
        description:
          'Free and without side effects: the first request to make, to tell key problems from delivery problems.',
        tags: ['Keys'],
        response: { 200: PingResult, ...errorResponses(400, 401, 429) },
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
