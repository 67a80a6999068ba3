// A local Telnyx API double on 127.0.0.1, following the documented contract: POST /v2/messages (JSON, bearer
// key, 200 { data: { id, ... } }) and POST /v2/texml/calls/{connection_id} (JSON, bearer key, 200 flat
// { call_sid, from, to, status }), GET /v2/balance (bearer key, 200 { data: { balance, currency, ... } }: what
// "test credentials" calls); errors as { errors: [{ code, title, detail, source }] }. It records every
// request and answers as told: success, a documented error, 5xx, 429 + Retry-After, a malformed body, or hang.

import type { KeyObject } from 'node:crypto';
import { randomUUID, sign } from 'node:crypto';
import { sendJson as json, type RecordedRequest, startRecordingServer } from './recording-server.js';

export type { RecordedRequest };

/** Documented errors, by name: HTTP status and the body's first error. */
export const TELNYX_ERRORS = {
  invalid_to: {
    status: 400,
    error: {
      code: '40310',
      title: "Invalid 'to' address",
      detail: "The 'to' address should be a single valid number.",
      source: { pointer: '/to' },
    },
  },
  invalid_phone_number: {
    status: 422,
    error: { code: '10002', title: 'Invalid phone number', detail: 'The phone number is invalid.' },
  },
  authentication_failed: {
    status: 401,
    error: {
      code: '10009',
      title: 'Authentication failed',
      detail: 'The required authentication headers were either invalid or not included in the request.',
    },
  },
  authorization_failed: {
    status: 403,
    error: {
      code: '10010',
      title: 'Authorization failed',
      detail:
        'You do not have permission to perform the requested action on the specified resource or resources.',
    },
  },
} as const;

export type TelnyxErrorName = keyof typeof TELNYX_ERRORS;

export type FakeMode =
  | { kind: 'success' }
  | { kind: 'error'; name: TelnyxErrorName }
  | { kind: 'server_error'; status?: number }
  | { kind: 'rate_limited'; retryAfter: string }
  | { kind: 'malformed' }
  | { kind: 'hang' };

export interface FakeTelnyx {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Ids handed out, newest last. */
  issuedIds: string[];
  answerWith(mode: FakeMode): void;
  close(): Promise<void>;
}

/** The balance GET /v2/balance answers, as the API reference shows it. */
const balance = {
  record_type: 'balance',
  pending: '10.00',
  balance: '300.00',
  credit_limit: '100.00',
  available_credit: '400.00',
  currency: 'USD',
};

export async function startFakeTelnyx(apiKey: string): Promise<FakeTelnyx> {
  const issuedIds: string[] = [];
  let mode: FakeMode = { kind: 'success' };

  const server = await startRecordingServer((req, res, { path, json: parsed }) => {
    if (mode.kind === 'hang') return; // never answers: the adapter's deadline must fire
    if (req.method === 'GET' && path === '/v2/balance') {
      // "Get user balance details": the key first (401 10009), then the balance as decimal strings.
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        json(res, 401, { errors: [TELNYX_ERRORS.authentication_failed.error] });
      } else if (mode.kind === 'error') {
        const { status, error } = TELNYX_ERRORS[mode.name];
        json(res, status, { errors: [error] });
      } else if (mode.kind === 'server_error') {
        json(res, mode.status ?? 503, {
          errors: [{ code: '10007', title: 'Unexpected error', detail: 'An unexpected error occured.' }],
        });
      } else {
        json(res, 200, { data: balance });
      }
      return;
    }
    const isMessage = req.method === 'POST' && path === '/v2/messages';
    const call = req.method === 'POST' ? /^\/v2\/texml\/calls\/([^/]+)$/.exec(path) : null;
    if (!isMessage && !call) {
      json(res, 404, { errors: [{ code: '10005', title: 'Resource not found', detail: 'Not found.' }] });
      return;
    }
    // The real API checks the key before anything else.
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      json(res, 401, { errors: [TELNYX_ERRORS.authentication_failed.error] });
      return;
    }
    if (mode.kind === 'error') {
      const { status, error } = TELNYX_ERRORS[mode.name];
      json(res, status, { errors: [error] });
      return;
    }
    if (mode.kind === 'server_error') {
      json(res, mode.status ?? 503, {
        errors: [{ code: '10007', title: 'Unexpected error', detail: 'An unexpected error occured.' }],
      });
      return;
    }
    if (mode.kind === 'rate_limited') {
      json(
        res,
        429,
        { errors: [{ code: '10011', title: 'Too many requests', detail: 'Slow down.' }] },
        { 'retry-after': mode.retryAfter },
      );
      return;
    }
    if (mode.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": {"id": ');
      return;
    }
    const body = (parsed ?? {}) as Record<string, unknown>;
    if (isMessage) {
      const id = randomUUID();
      issuedIds.push(id);
      json(res, 200, {
        data: {
          record_type: 'message',
          direction: 'outbound',
          id,
          type: 'SMS',
          from: { phone_number: body.from, carrier: 'Telnyx', line_type: 'Wireless' },
          to: [
            {
              phone_number: body.to,
              status: 'queued',
              carrier: 'T-MOBILE USA, INC.',
              line_type: 'Wireless',
            },
          ],
          text: body.text,
          webhook_url: body.webhook_url,
          encoding: 'GSM-7',
          parts: 1,
          errors: [],
        },
      });
      return;
    }
    const id = `v3:${randomUUID()}`;
    issuedIds.push(id);
    json(res, 200, { call_sid: id, from: body.From, to: body.To, status: 'queued' });
  });

  return {
    ...server,
    issuedIds,
    answerWith: (next) => {
      mode = next;
    },
  };
}

/** Signs a webhook as Telnyx does: base64 Ed25519 over `${timestamp}|${rawBody}`. */
export function signTelnyxWebhook(privateKey: KeyObject, rawBody: string, timestampSeconds: number) {
  const signature = sign(null, Buffer.from(`${timestampSeconds}|${rawBody}`), privateKey).toString('base64');
  return { 'telnyx-timestamp': String(timestampSeconds), 'telnyx-signature-ed25519': signature };
}
