// /v1/otp/*: thin handlers over the verification service. Schemas come from schemas.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ref } from '../http/named-schema.js';
import { ANY_REQUEST_ERRORS, BODY_ERRORS, type ErrorResponses } from '../http/responses.js';
import { ADMISSION_ERRORS, principalOf } from '../keys/auth-hook.js';
import type { Idempotency } from './idempotency.js';
import { idempotencyHooks } from './idempotency-hooks.js';
import {
  CANCELED_EXAMPLE,
  CHECK_EXAMPLES,
  CheckBody,
  CheckResult,
  IdParams,
  SendBody,
  SendHeaders,
  Verification,
} from './schemas.js';
import type { VerificationService } from './service.js';

/** What every route here may answer: any request's, admission's (with the `otp` scope), an unknown id's. */
const COMMON_ERRORS = [...ANY_REQUEST_ERRORS, ...ADMISSION_ERRORS, 'insufficient_scope'] as const;

export function verificationRoutes(
  service: VerificationService,
  idempotency: Idempotency,
  errors: ErrorResponses,
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
          operationId: 'sendVerification',
          summary: 'Send a code',
          description:
            'Generates a code, delivers it by voice (default) or SMS, and returns the verification. A pending code for the same number is superseded (canceled) at once. ' +
            'A number past its send limit or its failed-guess ceiling is answered 429 `rate_limited` with `Retry-After`. ' +
            "A number no code goes to (premium-rate and the like), or whose range or country the pumping guard blocks, is answered 403 `destination_blocked` with `reason` (and `Retry-After` for a block); nothing is sent or stored but a row of the dashboard's log. " +
            'With an `Idempotency-Key`, a retry within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and sends nothing.',
          tags,
          headers: SendHeaders,
          body: ref(SendBody),
          response: {
            201: ref(Verification, 'The code is on its way: the new verification'),
            ...errors(
              ...COMMON_ERRORS,
              ...BODY_ERRORS,
              'invalid_phone',
              'unsupported_country',
              'destination_blocked',
              'channel_unavailable',
              'conflict',
              'idempotency_key_in_use',
              'idempotency_key_reused',
            ),
          },
        },
      },
      async (request, reply) => reply.code(201).send(await service.send(principalOf(request), request.body)),
    );

    app.post(
      '/otp/check',
      {
        config,
        schema: {
          operationId: 'checkVerification',
          summary: 'Check a code',
          description:
            'Compares a typed code with a pending verification. A wrong code is not an error: branch on `verified`. ' +
            'A number past its failed-guess ceiling (20 failed checks in an hour by default, over all its codes) is ' +
            'answered 429 `rate_limited` with `Retry-After` whatever the code, and spends no attempt.',
          tags,
          body: ref(CheckBody),
          response: {
            200: {
              description: 'The outcome: branch on `verified`',
              content: { 'application/json': { schema: ref(CheckResult), examples: CHECK_EXAMPLES } },
            },
            ...errors(
              ...COMMON_ERRORS,
              ...BODY_ERRORS,
              'invalid_phone',
              'unsupported_country',
              'not_found',
              'no_verification',
            ),
          },
        },
      },
      async (request) => service.check(principalOf(request), request.body),
    );

    app.get(
      '/otp/:id',
      {
        config,
        schema: {
          operationId: 'getVerification',
          summary: 'Read a verification',
          tags,
          params: IdParams,
          response: {
            200: ref(Verification, 'The verification as it stands'),
            ...errors(...COMMON_ERRORS, 'not_found'),
          },
        },
      },
      async (request) => service.get(principalOf(request), request.params.id),
    );

    app.post(
      '/otp/:id/cancel',
      {
        config,
        schema: {
          operationId: 'cancelVerification',
          summary: 'Cancel a verification',
          description:
            'Abandons a pending verification. Idempotent: a finished verification is returned unchanged.',
          tags,
          params: IdParams,
          response: {
            200: {
              description: 'The verification, canceled',
              content: { 'application/json': { schema: ref(Verification), example: CANCELED_EXAMPLE } },
            },
            // A POST: a body, though none is read, is still parsed (and refused as any body would be).
            ...errors(...COMMON_ERRORS, ...BODY_ERRORS, 'not_found'),
          },
        },
      },
      async (request) => service.cancel(principalOf(request), request.params.id),
    );
  };
}
