// /v1/otp/*: thin handlers over the verification service. Schemas come from schemas.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/responses.js';
import { principalOf } from '../keys/auth-hook.js';
import type { Idempotency } from './idempotency.js';
import { idempotencyHooks } from './idempotency-hooks.js';
import { CheckBody, CheckResult, IdParams, SendBody, SendHeaders, Verification } from './schemas.js';
import type { VerificationService } from './service.js';

export function verificationRoutes(
  service: VerificationService,
  idempotency: Idempotency,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { scope: 'otp' as const };
    const tags = ['Verifications'];
    const idempotent = idempotencyHooks(idempotency);

    app.post(
      '/otp/send',
      {
        config,
        preParsing: idempotent.preParsing,
        preHandler: idempotent.preHandler,
        onSend: idempotent.onSend,
        schema: {
          summary: 'Send a code',
          description:
            'Generates a code, delivers it by voice (default) or SMS, and returns the verification. A pending code for the same number is superseded (canceled) at once. ' +
            'A number past its send limit or its failed-guess ceiling is answered 429 `rate_limited` with `Retry-After`. ' +
            "A number no code goes to (premium-rate and the like), or whose range or country the pumping guard blocks, is answered 403 `destination_blocked` with `reason` (and `Retry-After` for a block); nothing is sent or stored but a row of the dashboard's log. " +
            'With an `Idempotency-Key`, a retry within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and sends nothing.',
          tags,
          headers: SendHeaders,
          body: SendBody,
          response: { 201: Verification, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => reply.code(201).send(await service.send(principalOf(request), request.body)),
    );

    app.post(
      '/otp/check',
      {
        config,
        schema: {
          summary: 'Check a code',
          description:
            'Compares a typed code with a pending verification. A wrong code is not an error: branch on `verified`. ' +
            'A number past its failed-guess ceiling (20 failed checks in an hour by default, over all its codes) is ' +
            'answered 429 `rate_limited` with `Retry-After` whatever the code, and spends no attempt.',
          tags,
          body: CheckBody,
          response: { 200: CheckResult, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
        },
      },
      async (request) => service.check(principalOf(request), request.body),
    );

    app.get(
      '/otp/:id',
      {
        config,
        schema: {
          summary: 'Read a verification',
          tags,
          params: IdParams,
          response: { 200: Verification, ...errorResponses(400, 401, 403, 404, 429) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.id),
    );

    app.post(
      '/otp/:id/cancel',
      {
        config,
        schema: {
          summary: 'Cancel a verification',
          description:
            'Abandons a pending verification. Idempotent: a finished verification is returned unchanged.',
          tags,
          params: IdParams,
          response: { 200: Verification, ...errorResponses(400, 401, 403, 404, 429) },
        },
      },
      async (request) => service.cancel(principalOf(request), request.params.id),
    );
  };
}
