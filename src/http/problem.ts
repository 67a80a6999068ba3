// RFC 9457 problem details: the one place errors become HTTP. Handlers throw; nothing else builds error bodies.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../errors.js';
import { isDatabaseUnavailable, isRemovedMeanwhile } from '../store/unavailable.js';
import { isAbandonedRequest } from './connections.js';

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable snake_case identifier: branch on this, never on detail' }),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    reason: Type.Optional(Type.String()),
    retry_after: Type.Optional(Type.Integer()),
  },
  { description: 'RFC 9457 problem details' },
);

export function problemType(code: ErrorCode): string {
  return `urn:phone-verify:problem:${code}`;
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.extras.retry_after !== undefined) reply.header('retry-after', String(error.extras.retry_after));
  return reply
    .code(error.status)
    .type('application/problem+json')
    .send({
      type: problemType(error.code),
      title: ERROR_CATALOGUE[error.code].title,
      status: error.status,
      detail: error.message,
      code: error.code,
      request_id: reply.request.id,
      ...error.extras,
    });
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldErrors(errors: AjvError[], context: string): FieldError[] {
  const byField = new Map<string, string>();
  for (const e of errors) {
    let field = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = [field, String(e.params.missingProperty)].filter(Boolean).join('.');
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = [field, String(e.params.additionalProperty)].filter(Boolean).join('.');
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    const key = field || context;
    if (!byField.has(key)) byField.set(key, message);
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

/** Framework errors (validation, body parsing) as catalogue errors. */
export function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    return new AppError('unavailable', 'The database is unreachable or busy; try again shortly.', {
      retry_after: 2,
    });
  }
  if (isRemovedMeanwhile(error)) {
    return new AppError(
      'conflict',
      'Something this request relies on (its workspace, a number or a carrier account) was removed while it ran; nothing was kept.',
    );
  }
  if (error.validation) {
    const errors = fieldErrors(error.validation as AjvError[], error.validationContext ?? 'body');
    const detail = errors.map((e) => `${e.field} ${e.message}`).join('; ');
    return new AppError('invalid_request', detail, { errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'Send the request body as Content-Type: application/json.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'payload_too_large',
        'The request body is larger than this endpoint accepts (16 KiB for the API).',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_request', 'The body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return new AppError(
        'invalid_request',
        'The URL cannot be read: a % not followed by two hex digits, or percent-encoded bytes that are not UTF-8.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // No id is that long, so nothing is there (the router's own answer would be a bare 414).
      return new AppError('not_found', 'Not found: a path segment over 100 characters names nothing here.');
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new AppError('invalid_request', 'The request could not be read: malformed body or headers.');
  }
  if (error.statusCode === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (error.statusCode === 415) return new AppError('unsupported_media_type', 'Unsupported Content-Type.');
  if (error.statusCode === 404) return new AppError('not_found', 'Not found.');
  if (error.statusCode === 503)
    return new AppError('unavailable', 'The service is unavailable; try again shortly.', { retry_after: 5 });
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('invalid_request', 'The request could not be processed.');
  }
  return new AppError(
    'internal_error',
    'Something went wrong on our side. The request id identifies it in our logs.',
  );
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (a URL it cannot decode, a
 * path parameter past its length limit) is a problem body too, with the request id every answer carries.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('x-request-id', request.id);
  sendProblem(reply, toAppError(error));
}

export function registerProblemHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isAbandonedRequest(error, request)) {
      request.log.debug('request abandoned: its connection closed before the body arrived');
      return sendProblem(reply, new AppError('invalid_request', 'The request body did not arrive.'));
    }
    const problem = toAppError(error);
    if (problem.code === 'unavailable') request.log.warn({ err: error }, 'request refused: unavailable');
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
