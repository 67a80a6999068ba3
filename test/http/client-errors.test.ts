// Issue 11, item 6: a request the HTTP parser cannot read (a bad header, a bad Content-Length, a bad chunk, headers
// too large) is answered with a problem body and its connection closed, and is logged without its bytes, which
// hold the API key, the session cookie or the password. A real server process at LOG_LEVEL=trace, raw sockets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliSuiteEnv, seedWithCli } from '../helpers/cli-setup.js';
import { eventually } from '../helpers/eventually.js';
import { type ServerProcess, startServer } from '../helpers/process.js';
import { headOf, jsonBodyOf, type RawConnection, sendRaw, statusOf } from '../helpers/raw-http.js';

const { env } = cliSuiteEnv();
const { key } = seedWithCli(env);
const COOKIE = 'pv_session=s3ss10n-c00k1e-v4lue-never-logged';
const PASSWORD = 'correct-horse-battery-staple-never-logged';

/**
 * The log text with every byte array pino wrote for a Buffer ({"type":"Buffer","data":[71,69,…]}) decoded, so a
 * secret is found whether it was logged as text or as bytes.
 */
function readable(logs: string): string {
  return logs.replace(/\{"type":"Buffer","data":\[([\d,]*)\]\}/g, (_, bytes: string) =>
    Buffer.from(bytes.split(',').filter(Boolean).map(Number)).toString('latin1'),
  );
}

describe('malformed requests at LOG_LEVEL=trace', () => {
  let server: ServerProcess;
  const connections: RawConnection[] = [];
  before(async () => {
    server = await startServer({ ...env, LOG_LEVEL: 'trace' });
  });
  after(async () => {
    for (const raw of connections) raw.destroy();
    await server.stop();
  });

  /** Sends the request; resolves with what came back once the server closed the connection. */
  async function answerTo(head: string[], body = ''): Promise<string> {
    const raw = await sendRaw(server.url, head, body);
    connections.push(raw);
    await eventually('the server closes the connection', () => raw.closed());
    return raw.received();
  }

  function assertClosingProblem(received: string, status: number, code: string): void {
    assert.equal(statusOf(received), status, received);
    const head = headOf(received);
    assert.match(head, /\r\ncontent-type: application\/problem\+json/);
    assert.match(head, /\r\nconnection: close/);
    const problem = jsonBodyOf(received);
    assert.equal(problem.code, code);
    assert.equal(problem.status, status);
    assert.match(String(problem.request_id), /^req_/);
  }

  const secrets = [`Authorization: Bearer ${key}`, `Cookie: ${COOKIE}`];
  const cases: Array<{
    name: string;
    head: string[];
    body?: string;
    status: number;
    code: string;
    parser: string;
  }> = [
    {
      name: 'a header name with a space (Bad Header: x)',
      head: ['GET /v1/ping HTTP/1.1', 'Host: pv.test', ...secrets, 'Bad Header: x'],
      status: 400,
      code: 'invalid_request',
      parser: 'HPE_INVALID_HEADER_TOKEN',
    },
    {
      name: 'Content-Length: abc',
      head: ['POST /v1/otp/send HTTP/1.1', 'Host: pv.test', ...secrets, 'Content-Length: abc'],
      body: '{"phone":"+61491570156"}',
      status: 400,
      code: 'invalid_request',
      parser: 'HPE_INVALID_CONTENT_LENGTH',
    },
    {
      name: 'a bad chunk after the headers, in a sign-in carrying the password',
      head: [
        'POST /dashboard/signin HTTP/1.1',
        'Host: pv.test',
        `Cookie: ${COOKIE}`,
        'Content-Type: application/x-www-form-urlencoded',
        'Transfer-Encoding: chunked',
      ],
      body: `zz\r\nemail=a%40b.test&password=${PASSWORD}\r\n0\r\n\r\n`,
      status: 400,
      code: 'invalid_request',
      parser: 'HPE_INVALID_CHUNK_SIZE',
    },
    {
      name: 'headers over the size limit',
      head: ['GET /v1/ping HTTP/1.1', 'Host: pv.test', ...secrets, `X-Padding: ${'a'.repeat(20_000)}`],
      status: 431,
      code: 'headers_too_large',
      parser: 'HPE_HEADER_OVERFLOW',
    },
  ];

  for (const c of cases) {
    test(`${c.name}: ${c.status} ${c.code}, the connection closed, logged without the request's bytes`, async () => {
      const received = await answerTo(c.head, c.body);
      assertClosingProblem(received, c.status, c.code);
      const line = await eventually('the client error is logged', () =>
        server
          .stderr()
          .split('\n')
          .find((l) => l.includes(`"${c.parser}"`)),
      );
      const entry = JSON.parse(line) as Record<string, unknown>;
      assert.equal(entry.msg, 'client error');
      assert.equal(entry.request_id, jsonBodyOf(received).request_id, "the log line carries the answer's id");
      assert.equal('rawPacket' in entry || line.includes('rawPacket'), false, line.slice(0, 300));
    });
  }

  test('nothing logged at any level holds the key, the cookie or the password', () => {
    const logs = server.stderr();
    assert.ok(logs.includes('client error'), 'the malformed requests were logged');
    for (const text of [logs, readable(logs)]) {
      assert.equal(text.includes(key), false, 'the API key is not logged');
      assert.equal(text.includes(key.slice(8, 30)), false, 'no part of the API key is logged');
      assert.equal(text.includes('s3ss10n-c00k1e'), false, 'the session cookie is not logged');
      assert.equal(text.includes(PASSWORD), false, 'the password is not logged');
      assert.equal(text.toLowerCase().includes('bearer'), false, 'no Authorization header is logged');
    }
  });
});
