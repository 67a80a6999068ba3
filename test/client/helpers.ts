// The Node client against the real service: a test app listening on a real port of 127.0.0.1 (the client speaks
// HTTP through Node's fetch), and a proxy in front of it that a test can make lose answers, fail or count requests.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PhoneVerify, type PhoneVerifyOptions } from '@phone-verify/client';
import { createTestApp, type TestApp } from '../helpers/app.js';

export interface ListeningApp extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string;
}

export async function listeningApp(options: Parameters<typeof createTestApp>[0] = {}): Promise<ListeningApp> {
  const t = await createTestApp(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { ...t, url: `http://127.0.0.1:${address.port}` };
}

/** A client with fast retries (the policy's shape is the same; only its delays are short). */
export function fastClient(options: Partial<PhoneVerifyOptions> & { baseUrl: string; apiKey: string }) {
  return new PhoneVerify({ retryBaseDelayMs: 20, maxRetryDelayMs: 5_000, timeoutMs: 5_000, ...options });
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** What the stub does with one request: answer it itself, pass it to the upstream, or drop the connection. */
export type Verdict =
  | { answer: number; headers?: Record<string, string>; body?: unknown }
  | {
      forward: true /** Forward, then answer this instead of the upstream's answer (the answer is lost). */;
      replaceWith?: number;
      destroy?: boolean;
    }
  | { hang: true }
  | { destroy: true };

export interface Stub {
  url: string;
  seen: Seen[];
  /** Every upstream answer that reached the client or was lost, with its headers. */
  upstreamAnswers: { status: number; headers: Headers; body: string }[];
  decide: (request: Seen, index: number) => Verdict;
  close(): Promise<void>;
}

/** A local HTTP server in front of `upstream` (or alone) whose answers the test chooses per request. */
export async function startStub(upstream?: string): Promise<Stub> {
  const hanging: ServerResponse[] = [];
  const stub: Stub = {
    url: '',
    seen: [],
    upstreamAnswers: [],
    decide: () => ({ forward: true }),
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const seen: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = stub.seen.push(seen) - 1;
      const verdict = stub.decide(seen, index);
      if ('hang' in verdict) {
        hanging.push(res);
        return;
      }
      if ('answer' in verdict) {
        const type = verdict.answer < 400 ? 'application/json' : 'application/problem+json';
        res.writeHead(verdict.answer, { 'content-type': type, ...verdict.headers });
        res.end(verdict.body === undefined ? '' : JSON.stringify(verdict.body));
        return;
      }
      if (!('forward' in verdict)) {
        req.socket.destroy();
        return;
      }
      assert.ok(upstream, 'a stub that forwards has an upstream');
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers.connection;
      const answer = await fetch(`${upstream}${seen.url}`, {
        method: seen.method,
        headers,
        body: seen.method === 'GET' ? undefined : seen.body || undefined,
      });
      const text = await answer.text();
      stub.upstreamAnswers.push({ status: answer.status, headers: answer.headers, body: text });
      if (verdict.destroy) {
        req.socket.destroy();
        return;
      }
      if (verdict.replaceWith !== undefined) {
        res.writeHead(verdict.replaceWith, { 'content-type': 'application/problem+json' });
        res.end(JSON.stringify(problem(verdict.replaceWith, 'unavailable')));
        return;
      }
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        ...(answer.headers.get('retry-after')
          ? { 'retry-after': answer.headers.get('retry-after') as string }
          : {}),
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}

/** A problem body as the service writes it (`type`: the code's section of the errors reference). */
export function problem(status: number, code: string, extras: Record<string, unknown> = {}) {
  return {
    type: `http://127.0.0.1/docs/errors#${code}`,
    title: code,
    status,
    detail: `${code} (from the test stub)`,
    code,
    request_id: 'req_stub',
    ...extras,
  };
}

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `fn`, expecting it to reject with an error of `type`; returns that error. */
export async function rejection<T extends Error>(
  fn: () => Promise<unknown>,
  type: abstract new (...args: never[]) => T,
): Promise<T> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${type.name}, but the call succeeded`);
}
