// Requests that never reach a route: ones the HTTP parser cannot read (a bad header, a bad Content-Length or
// chunk, headers over the size limit) and ones that did not arrive whole within REQUEST_TIMEOUT_MS. Each is
// answered with a problem body, and its connection closed, since what follows on it cannot be read as requests.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { newId } from '../ids.js';
import type { ProblemTypes } from './problem.js';

const ANSWERS: Record<string, { code: ErrorCode; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    detail: 'The request did not arrive whole in time; the connection is closed.',
  },
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    detail: 'The request headers are larger than this service reads (16 KiB in all).',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    code: 'payload_too_large',
    detail: 'The request body has chunk extensions larger than this service reads.',
  },
};
const UNREADABLE = {
  code: 'invalid_request',
  detail: 'The request could not be read: malformed request line, headers or body.',
} as const;

/** The parts of Node's client error this reads: never its `rawPacket`, the request's bytes as received. */
interface ClientError {
  code?: string;
  message: string;
}

/** What a client error is logged as: its code and Node's words (the parser's reason), bounded. */
function description(error: ClientError): { client_error: string; reason: string } {
  return { client_error: String(error.code ?? 'unknown').slice(0, 64), reason: error.message.slice(0, 200) };
}

/**
 * Fastify's clientErrorHandler (called with the Fastify instance as `this`). Fastify's own logs the error whole, and the error Node raises for a request it
 * cannot parse carries the request's bytes: the API key, the session cookie, a password in a body. This one logs
 * the error's code and message alone, at debug, under the request id the answer carries.
 */
export function clientErrorAnswer(
  types: ProblemTypes,
): (this: FastifyInstance, error: ClientError, socket: Socket) => void {
  return function answerClientError(error, socket) {
    // The client reset the connection, or it is already closed: there is no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newId('req');
    this.log.debug({ request_id: requestId, ...description(error) }, 'client error');
    const { code, detail } = (error.code && ANSWERS[error.code]) || UNREADABLE;
    const { status, title } = ERROR_CATALOGUE[code];
    const body = JSON.stringify({
      type: types[code],
      title,
      status,
      detail,
      code,
      request_id: requestId,
    });
    // Nothing is written into an answer already under way (its bytes would corrupt it): the connection only closes.
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (socket.writable && !answering?.headersSent) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          'Content-Type: application/problem+json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
