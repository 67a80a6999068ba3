// A local Twilio REST API double following the documented contract (twilio.com/docs/iam/api,
// /docs/messaging/api/message-resource, /docs/voice/api/call-resource, /docs/usage/twilios-response):
// POST /2010-04-01/Accounts/{AccountSid}/Messages.json and /Calls.json, GET /2010-04-01/Accounts/{AccountSid}.json
// (the account itself: "test credentials"), HTTP Basic AccountSid:AuthToken,
// form-encoded parameters; 201 with the resource as JSON on success, {code, message, more_info, status} on error.
// It records every request and answers each one as told: success, a documented error, 5xx, 429 + Retry-After,
// a malformed body, or no answer at all (for timeouts).
import { createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, sendJson, startRecordingServer } from './recording-server.js';

export type { RecordedRequest };

/** Documented REST errors (twilio.com/docs/api/errors/<code>), with Twilio's HTTP status and words. */
export const TWILIO_ERRORS = {
  20003: { status: 401, message: 'Authenticate' },
  20404: { status: 404, message: 'The requested resource was not found' },
  21211: { status: 400, message: "The 'To' number is not a valid phone number." },
  21219: {
    status: 400,
    message: "The 'To' number is not verified. Trial accounts may only call verified numbers.",
  },
  21606: {
    status: 400,
    message: "The 'From' phone number provided is not a valid message-capable Twilio phone number.",
  },
  21608: {
    status: 400,
    message: "The 'To' number is unverified. Trial accounts cannot send messages to unverified numbers.",
  },
  21610: { status: 400, message: 'Attempt to send to unsubscribed recipient' },
  21614: { status: 400, message: "'To' number is not a valid mobile number" },
} as const;
export type TwilioErrorCode = keyof typeof TWILIO_ERRORS;

export type TwilioFakeReply =
  | { kind: 'success' }
  | { kind: 'error'; code: TwilioErrorCode }
  | { kind: 'server_error'; status: 500 | 502 | 503; retryAfter?: string }
  | { kind: 'rate_limited'; retryAfter: string }
  | { kind: 'malformed' }
  | { kind: 'hang' }
  /** Answers success only when release() is called (a slow carrier). */
  | { kind: 'hold' };

export interface TwilioFake {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Answers the next requests in this order; after them, success. */
  reply(...replies: TwilioFakeReply[]): void;
  /** Answers the next requests to this number (`To`) in this order, before any reply(): per code, not per turn. */
  replyTo(to: string, ...replies: TwilioFakeReply[]): void;
  /** Answers every held request with success. */
  release(): void;
  /** The requests answered with success: the messages and calls the carrier took, so the phone gets them. */
  accepted: RecordedRequest[];
  /** How many requests are held, unanswered, right now. */
  held(): number;
  close(): Promise<void>;
}

const RESOURCE = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/;
/** GET: fetch an Account resource (twilio.com/docs/iam/api/account), what "test credentials" calls. */
const ACCOUNT = /^\/2010-04-01\/Accounts\/([^/]+)\.json$/;

export async function startTwilioFake(account: {
  accountSid: string;
  authToken: string;
  /** The account's friendly_name (default "My first Twilio account", as a new account is named). */
  friendlyName?: string;
}): Promise<TwilioFake> {
  const queue: TwilioFakeReply[] = [];
  const byNumber = new Map<string, TwilioFakeReply[]>();
  let held: (() => void)[] = [];
  const accepted: RecordedRequest[] = [];
  const accept = (res: ServerResponse, kind: string, accountSid: string, recorded: RecordedRequest) => {
    accepted.push(recorded);
    sendJson(res, 201, resourceFor(kind === 'Calls' ? 'CA' : 'SM', accountSid, recorded.form));
  };
  const expectedAuth = `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`;

  const server = await startRecordingServer((req, res, recorded) => {
    const { path } = recorded;
    const fetched = req.method === 'GET' ? ACCOUNT.exec(path) : null;
    if (fetched) {
      // Twilio checks the credentials first: a wrong SID or token is 20003, whatever the path names.
      if (req.headers.authorization !== expectedAuth) return twilioError(res, 20003);
      if (fetched[1] !== account.accountSid) return twilioError(res, 20404);
      const reply = queue.shift() ?? { kind: 'success' };
      if (reply.kind === 'hang' || reply.kind === 'hold') return;
      if (reply.kind === 'server_error') {
        return sendJson(res, reply.status, {
          code: 20500,
          message: 'An internal server error has occurred',
          more_info: moreInfo(20500),
          status: reply.status,
        });
      }
      if (reply.kind === 'error') return twilioError(res, reply.code);
      return sendJson(res, 200, accountResource(account));
    }
    const match = RESOURCE.exec(path);
    if (req.method !== 'POST' || !match || match[1] !== account.accountSid) return twilioError(res, 20404);
    if (req.headers.authorization !== expectedAuth) return twilioError(res, 20003);
    if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return sendJson(res, 400, {
        code: 400,
        message: 'Bad Request',
        more_info: moreInfo(400),
        status: 400,
      });
    }

    const reply = byNumber.get(recorded.form.get('To') ?? '')?.shift() ??
      queue.shift() ?? { kind: 'success' };
    switch (reply.kind) {
      case 'success':
        return accept(res, match[2] ?? '', account.accountSid, recorded);
      case 'error':
        return twilioError(res, reply.code);
      case 'server_error':
        if (reply.retryAfter) res.setHeader('retry-after', reply.retryAfter);
        return sendJson(res, reply.status, {
          code: 20500,
          message: 'An internal server error has occurred',
          more_info: moreInfo(20500),
          status: reply.status,
        });
      case 'rate_limited':
        res.setHeader('retry-after', reply.retryAfter);
        return sendJson(res, 429, {
          code: 20429,
          message: 'Too Many Requests',
          more_info: moreInfo(20429),
          status: 429,
        });
      case 'malformed':
        res.writeHead(201, { 'content-type': 'application/json' });
        return res.end('{"sid": "SM');
      case 'hang':
        return; // never answers; close() drops the connection
      case 'hold':
        held.push(() => accept(res, match[2] ?? '', account.accountSid, recorded));
        return;
    }
  });

  return {
    ...server,
    reply: (...replies) => queue.push(...replies),
    replyTo: (to, ...replies) => byNumber.set(to, [...(byNumber.get(to) ?? []), ...replies]),
    release: () => {
      const answers = held;
      held = [];
      for (const answer of answers) answer();
    },
    held: () => held.length,
    accepted,
  };
}

function resourceFor(prefix: 'SM' | 'CA', accountSid: string, form: URLSearchParams) {
  const sid = `${prefix}${randomBytes(16).toString('hex')}`;
  const common = {
    sid,
    account_sid: accountSid,
    to: form.get('To'),
    from: form.get('From'),
    status: 'queued',
    api_version: '2010-04-01',
    date_created: new Date().toUTCString(),
  };
  const kind = prefix === 'SM' ? 'Messages' : 'Calls';
  return { ...common, uri: `/2010-04-01/Accounts/${accountSid}/${kind}/${sid}.json` };
}

/** The Account resource as Twilio documents it; like the real one, it carries the auth token. */
function accountResource(account: { accountSid: string; authToken: string; friendlyName?: string }) {
  const base = `/2010-04-01/Accounts/${account.accountSid}`;
  return {
    auth_token: account.authToken,
    date_created: 'Thu, 30 Jul 2015 20:00:00 +0000',
    date_updated: 'Thu, 30 Jul 2015 20:00:00 +0000',
    friendly_name: account.friendlyName ?? 'My first Twilio account',
    owner_account_sid: account.accountSid,
    sid: account.accountSid,
    status: 'active',
    subresource_uris: { messages: `${base}/Messages.json`, calls: `${base}/Calls.json` },
    type: 'Full',
    uri: `${base}.json`,
  };
}

const moreInfo = (code: number) => `https://www.twilio.com/docs/errors/${code}`;

function twilioError(res: ServerResponse, code: TwilioErrorCode) {
  const { status, message } = TWILIO_ERRORS[code];
  sendJson(res, status, { code, message, more_info: moreInfo(code), status });
}

/**
 * Signs a status callback as Twilio does (twilio.com/docs/usage/webhooks/webhooks-security): HMAC-SHA1 with the
 * auth token over the URL followed by each POST parameter, sorted by name, as name then value; base64.
 * Written independently of the adapter's verifier so the tests do not check the code against itself.
 */
export function signLikeTwilio(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', authToken).update(data).digest('base64');
}
