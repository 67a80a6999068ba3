// Requests Node's HTTP parser refuses before Fastify sees them: a control character (NUL, DEL, …) in a header, a
// header block over Node's 16 KiB, a request that never finished arriving. They get the same problem bodies as
// every other answer (RFC 9457, with a request id), not Fastify's own JSON.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, ERROR_CATALOGUE } from '../errors.js';
import { newId } from '../ids.js';
import { problemType } from './problem.js';

function problemOf(err: NodeJS.ErrnoException): AppError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError('request_timeout', 'The request did not arrive in time.');
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new AppError('headers_too_large', 'The request headers are larger than 16 KiB together.');
  }
  return new AppError(
    'invalid_request',
    'The request could not be read as HTTP: malformed framing, or a header with a control character (NUL, DEL, …) or an invalid name.',
  );
}

/** Fastify's clientErrorHandler: answers once, as a problem, and closes the connection (it cannot be trusted). */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // Reset: nobody is left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = problemOf(err);
  const requestId = newId('req');
  const body = JSON.stringify({
    type: problemType(problem.code),
    title: ERROR_CATALOGUE[problem.code].title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    request_id: requestId,
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
