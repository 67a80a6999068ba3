// RFC 9457 problem details: the one place errors become HTTP. Handlers throw; nothing else builds error bodies.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../errors.js';
import { isDatabaseUnavailable, isRemovedMeanwhile } from '../store/unavailable.js';
import { isAbandonedRequest } from './connections.js';
import { ERRORS_PAGE_PATH } from './errors-page.js';

const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

const FieldErrorSchema = Type.Object({
  field: Type.String({ description: 'The field at fault, dotted (`metadata.order`)' }),
  message: Type.String(),
});

export const Problem = Type.Object(
  {
    type: Type.String({
      format: 'uri',
      description: "The code's section of the errors reference: `<PUBLIC_URL>/docs/errors#<code>`",
    }),
    title: Type.String({ description: "The code's title: the same for every answer with that code" }),
    status: Type.Integer({ description: 'The HTTP status' }),
    detail: Type.String({ description: 'This occurrence, in words for a person: do not parse it' }),
    // A string of the catalogue's codes: typed for generators (`type`), serialised as a string.
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: ERROR_CODES,
      description: 'Stable snake_case identifier: branch on this, never on detail',
    }),
    request_id: Type.String({ description: 'The X-Request-Id of the answer: what the logs know it by' }),
    errors: Type.Optional(
      Type.Array(FieldErrorSchema, { description: '`invalid_request`: each field at fault' }),
    ),
    reason: Type.Optional(
      Type.String({
        description: '`destination_blocked` and `channel_unavailable`: why (see the errors reference)',
      }),
    ),
    retry_after: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Seconds to wait before trying again, as in the Retry-After header (429, 503, some 403 and 409)',
      }),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

/** Each code's problem `type`: its section of the errors reference, an absolute URL made once at start-up. */
export type ProblemTypes = Readonly<Record<ErrorCode, string>>;

export function problemTypes(publicUrl: string): ProblemTypes {
  return Object.freeze(
    Object.fromEntries(ERROR_CODES.map((code) => [code, `${publicUrl}${ERRORS_PAGE_PATH}#${code}`])),
  ) as ProblemTypes;
}

function sendProblem(reply: FastifyReply, error: AppError, types: ProblemTypes): FastifyReply {
  if (error.extras.retry_after !== undefined) reply.header('retry-after', String(error.extras.retry_after));
  return reply
    .code(error.status)
    .type('application/problem+json')
    .send({
      type: types[error.code],
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
export function frameworkErrorAnswer(
  types: ProblemTypes,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    reply.header('x-request-id', request.id);
    sendProblem(reply, toAppError(error), types);
  };
}

export function registerProblemHandling(app: FastifyInstance, types: ProblemTypes): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isAbandonedRequest(error, request)) {
      request.log.debug('request abandoned: its connection closed before the body arrived');
      return sendProblem(reply, new AppError('invalid_request', 'The request body did not arrive.'), types);
    }
    const problem = toAppError(error);
    if (problem.code === 'unavailable') request.log.warn({ err: error }, 'request refused: unavailable');
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problem, types);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`),
      types,
    ),
  );
}
