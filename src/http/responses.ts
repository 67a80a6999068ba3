// The error answers of a route's schema, from the codes it can answer: grouped by their status (the catalogue's),
// each status described by its codes and shown with one example per code (its `type` the code's section of the
// errors reference), all under `application/problem+json` (the media type problem.ts sends). Built once per
// route at start-up; on a request, the same entries give the error answer its compiled serialiser.
import { ERROR_REFERENCE } from '../error-reference.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { ref } from './named-schema.js';
import { Problem, type ProblemTypes } from './problem.js';

/** What every request may be answered, whatever its route: its database unreachable, or the process closing. */
export const ANY_REQUEST_ERRORS = ['unavailable'] as const satisfies readonly ErrorCode[];

/** What a request with a JSON body may be answered before its route reads it. */
export const BODY_ERRORS = [
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies readonly ErrorCode[];

/** A request id as the service makes them: the examples' `request_id`. */
const EXAMPLE_REQUEST_ID = 'req_0VbvA1b2C3d4E5f6G7h8I9j1';

export type ErrorResponses = (...codes: readonly ErrorCode[]) => Record<number, unknown>;

export function errorResponses(types: ProblemTypes): ErrorResponses {
  const example = (code: ErrorCode) => {
    const { status, title } = ERROR_CATALOGUE[code];
    const { detail, ...extras } = ERROR_REFERENCE[code].example;
    return {
      summary: `${code}: ${title}`,
      value: { type: types[code], title, status, detail, code, request_id: EXAMPLE_REQUEST_ID, ...extras },
    };
  };
  // No link to the errors reference here: each example's `type` is one, and the descriptions stay the same whatever
  // PUBLIC_URL is (types generated from the document, a client's, do not change with the server's address).
  const line = (code: ErrorCode) =>
    `- \`${code}\` (${ERROR_CATALOGUE[code].title}): ${ERROR_REFERENCE[code].meaning}`;

  return (...codes) => {
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of new Set(codes)) {
      const { status } = ERROR_CATALOGUE[code];
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    return Object.fromEntries(
      [...byStatus].map(([status, list]) => [
        status,
        {
          description: list.map(line).join('\n'),
          content: {
            'application/problem+json': {
              schema: ref(Problem),
              examples: Object.fromEntries(list.map((code) => [code, example(code)])),
            },
          },
        },
      ]),
    );
  };
}
