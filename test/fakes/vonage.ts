// A local stand-in for api.nexmo.com: POST /v1/messages (Messages API) and POST /v1/calls (Voice API), with the
// documented bodies, and for rest.nexmo.com's GET /account/get-balance (Account API: "test credentials"). It checks the Bearer JWT as Vonage does (RS256 against the application's public key,
// application_id, iat/exp) and answers the documented 401 otherwise; records every request; and can be told to
// answer success, a documented error, 5xx, 429 + Retry-After, a malformed body, or to hang.
import { createPublicKey, verify } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, sendJson, startRecordingServer } from './recording-server.js';

export type { RecordedRequest };

export type FakeReply =
  | { kind: 'success' }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'malformed' }
  | { kind: 'hang' };

const problem = (type: string, title: string, detail: string) => ({
  type,
  title,
  detail,
  instance: 'bf0ca0bf927b3b52e3cb03217e1a1ddf',
});

/** Error answers as the Vonage docs show them ("API Errors", Messages and Voice API references). */
export const VONAGE_ERRORS = {
  unauthorized: {
    kind: 'error',
    status: 401,
    body: problem(
      'https://developer.vonage.com/api-errors#unauthorized',
      'Unauthorized',
      'You did not provide correct credentials.',
    ),
  },
  lowBalance: {
    kind: 'error',
    status: 402,
    body: problem(
      'https://developer.vonage.com/api-errors#low-balance',
      'Low balance',
      'This request could not be performed due to your account balance being low.',
    ),
  },
  messagesInvalidParams: {
    kind: 'error',
    status: 422,
    body: problem(
      'https://developer.vonage.com/api-errors/messages#1020',
      'Invalid params',
      'The value of one or more parameters is invalid.',
    ),
  },
  messagesInvalidMessage: {
    kind: 'error',
    status: 422,
    body: problem(
      'https://developer.vonage.com/api-errors/messages#1040',
      'Invalid message',
      'The Platform was unable to process your request. For example, due to an unrecognised prefix for the phone number.',
    ),
  },
  messagesNumberBarred: {
    kind: 'error',
    status: 422,
    body: problem(
      'https://developer.vonage.com/api-errors/messages#1050',
      'Number barred',
      'The number you are trying to submit to is blacklisted and may not receive messages.',
    ),
  },
  throttled: {
    kind: 'error',
    status: 429,
    headers: { 'Retry-After': '7' },
    body: problem(
      'https://developer.vonage.com/api-errors/messages#1000',
      'Throttled',
      'You have exceeded the submission capacity allowed on this account. Please wait and retry',
    ),
  },
  serverError: {
    kind: 'error',
    status: 500,
    body: problem('https://developer.vonage.com/api-errors#internal-error', 'Internal Error', 'Try again.'),
  },
  voiceInvalidTo: {
    kind: 'error',
    status: 400,
    body: {
      type: 'https://developer.nexmo.com/api-errors#bad-request',
      error_title: 'Bad Request',
      invalid_parameters: [{ name: 'to[0].number', reason: 'must be a valid E.164 number' }],
    },
  },
  voiceForbidden: {
    kind: 'error',
    status: 403,
    body: problem(
      'https://developer.nexmo.com/api-errors#forbidden',
      'Forbidden',
      'Your account does not have permission to perform this action',
    ),
  },
} as const satisfies Record<string, FakeReply>;

export interface FakeVonage {
  url: string;
  requests: RecordedRequest[];
  /** Answer the next requests (in order) this way; afterwards, success again. */
  queue(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

/** The Account API's own 401 body for GET /account/get-balance (its OpenAPI, ErrorAuthenticationFailedAccountBalance). */
export const VONAGE_BALANCE_UNAUTHORIZED = {
  'error-code': '401',
  'error-code-label': 'authentication failed',
};

export async function startFakeVonage(app: {
  applicationId: string;
  publicKey: string;
  /** The account's API key and secret, which GET /account/get-balance takes (Basic or query); none: always 401. */
  apiKey?: string;
  apiSecret?: string;
}): Promise<FakeVonage> {
  const replies: FakeReply[] = [];
  const key = createPublicKey(app.publicKey);
  let counter = 0;

  const authorised = (header: string | undefined): boolean => {
    const token = header?.match(/^Bearer (.+)$/)?.[1];
    const [h, c, s] = token?.split('.') ?? [];
    if (!h || !c || !s) return false;
    if (!verify('sha256', Buffer.from(`${h}.${c}`), key, Buffer.from(s, 'base64url'))) return false;
    const header_ = JSON.parse(Buffer.from(h, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
    const now = Date.now() / 1000;
    return (
      header_.alg === 'RS256' &&
      claims.application_id === app.applicationId &&
      typeof claims.jti === 'string' &&
      claims.iat <= now + 5 &&
      claims.exp > now
    );
  };

  // Vonage spells the header Content-Type.
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    sendJson(res, status, body, { 'Content-Type': 'application/json', ...headers });

  /** HTTP Basic key:secret as the documented curl sends it, or the api_key and api_secret query parameters. */
  const accountAuthorised = (header: string | undefined, query: URLSearchParams): boolean => {
    if (app.apiKey === undefined || app.apiSecret === undefined) return false;
    const basic = header?.match(/^Basic (.+)$/)?.[1];
    if (basic) return Buffer.from(basic, 'base64').toString() === `${app.apiKey}:${app.apiSecret}`;
    return query.get('api_key') === app.apiKey && query.get('api_secret') === app.apiSecret;
  };

  const server = await startRecordingServer((req, res, { path: target }) => {
    const [path = '', search = ''] = target.split('?');
    if (req.method === 'GET' && path === '/account/get-balance') {
      const reply = replies.shift() ?? { kind: 'success' };
      if (reply.kind === 'hang') return;
      if (!accountAuthorised(req.headers.authorization, new URLSearchParams(search))) {
        return send(res, 401, VONAGE_BALANCE_UNAUTHORIZED);
      }
      if (reply.kind === 'error') return send(res, reply.status, reply.body, reply.headers);
      return send(res, 200, { value: 10.28, autoReload: false });
    }
    const known = req.method === 'POST' && (path === '/v1/messages' || path === '/v1/calls');
    if (!known)
      return send(res, 404, problem('https://developer.vonage.com/api-errors#not-found', 'Not Found', ''));
    const reply = replies.shift() ?? { kind: 'success' };
    if (reply.kind === 'hang') return; // never answers; the socket is destroyed on close
    if (!authorised(req.headers.authorization)) return send(res, 401, VONAGE_ERRORS.unauthorized.body);
    if (reply.kind === 'malformed') {
      res.writeHead(path === '/v1/calls' ? 201 : 202, { 'Content-Type': 'application/json' });
      return res.end('{"uuid": ');
    }
    if (reply.kind === 'error') return send(res, reply.status, reply.body, reply.headers);
    counter += 1;
    const id = `aaaaaaaa-bbbb-cccc-dddd-${String(counter).padStart(12, '0')}`;
    if (path === '/v1/messages') return send(res, 202, { message_uuid: id });
    return send(res, 201, {
      uuid: id,
      status: 'started',
      direction: 'outbound',
      conversation_uuid: `CON-${id}`,
    });
  });

  return {
    url: server.baseUrl,
    requests: server.requests,
    queue: (...r) => replies.push(...r),
    close: server.close,
  };
}
