// Requests Node's HTTP parser refuses before Fastify sees them get RFC 9457 problems like every other answer
// (docs/api.md, "Errors"), with a request id in the body and the header, over a real socket.
import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Problem } from '../helpers/api-types.js';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/app.js';

describe('answers to requests Node cannot parse', () => {
  let t: TestApp;
  let port = 0;

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  /** Sends raw bytes; resolves with everything answered before the server closed the connection. */
  function raw(request: Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let answer = '';
      socket.on('data', (d) => {
        answer += d;
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  function assertRawProblem(answer: string, status: number, code: string): Problem {
    assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `));
    assert.match(answer, /\r\nContent-Type: application\/problem\+json(; charset=utf-8)?\r\n/i);
    const problem = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Problem;
    assert.equal(problem.status, status);
    assert.equal(problem.code, code);
    // The code's section of the errors reference (GET /docs/errors), under PUBLIC_URL.
    assert.equal(problem.type, `${TEST_PUBLIC_URL}/docs/errors#${code}`);
    assert.match(problem.request_id, /^req_/);
    assert.match(answer, new RegExp(`\\r\\nX-Request-Id: ${problem.request_id}\\r\\n`, 'i'));
    return problem;
  }

  const get = (...headers: Buffer[]) =>
    Buffer.concat([
      Buffer.from('GET /v1/ping HTTP/1.1\r\nHost: 127.0.0.1'),
      ...headers.map((h) => Buffer.concat([Buffer.from('\r\n'), h])),
      Buffer.from('\r\n\r\n'),
    ]);

  for (const [name, header] of [
    ['a NUL in a header value', Buffer.from('X-Note: a\u0000b', 'latin1')],
    ['a control character in a header value', Buffer.from('X-Note: a\u0007b', 'latin1')],
    ['a space inside a header name', Buffer.from('X Note: ab')],
  ] as const) {
    test(`${name}: 400 invalid_request`, async () => {
      assertRawProblem(await raw(get(header)), 400, 'invalid_request');
    });
  }

  test('a request line that is not HTTP: 400 invalid_request', async () => {
    assertRawProblem(await raw(Buffer.from('HELLO\r\n\r\n')), 400, 'invalid_request');
  });

  test('headers over 16 KiB together: 431 headers_too_large', async () => {
    assertRawProblem(
      await raw(get(Buffer.from(`X-Note: ${'n'.repeat(17 * 1024)}`))),
      431,
      'headers_too_large',
    );
  });

  test('a well-formed request on the same server is answered as usual', async () => {
    const answer = await raw(get(Buffer.from('Connection: close')));
    assertRawProblem(answer, 401, 'missing_api_key');
  });
});
