// Issue 11, item 2: a request must arrive whole within REQUEST_TIMEOUT_MS, or its connection is cut; a process
// holds at most MAX_CONNECTIONS connections. A real server process and raw sockets: bodies and headers sent one
// byte at a time (the slow-request attack that used to hold a connection for ever), connections held open.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { assertCleanFailure, cliSuiteEnv, seedWithCli } from '../helpers/cli-setup.js';
import { eventually, quietPeriod } from '../helpers/eventually.js';
import { BIN, type CliResult, type ServerProcess, startServer } from '../helpers/process.js';
import { headOf, jsonBodyOf, openRaw, type RawConnection, sendRaw, statusOf } from '../helpers/raw-http.js';

const { env } = cliSuiteEnv();
const { key } = seedWithCli(env);

/**
 * The server is given 1 s for a request and checks every second, so a slow request is cut within about 2 s;
 * 30 s is generous for a busy machine, and still well short of Node's own 60-second headers timeout, which
 * would otherwise cut a connection sending its headers slowly and make that test pass without the setting.
 */
const CUT_WITHIN_MS = 30_000;

/** A body far longer than the wait: trickled at 10 bytes a second, it would take 100 s. */
const BODY_LENGTH = 1000;
const TRICKLE_MS = 100;

const connections: RawConnection[] = [];
const servers: ServerProcess[] = [];
after(async () => {
  for (const raw of connections) raw.destroy();
  for (const server of servers) await server.stop();
});

async function serverWith(settings: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer({ ...env, ...settings });
  servers.push(server);
  return server;
}

async function tracked(connection: Promise<RawConnection>): Promise<RawConnection> {
  const raw = await connection;
  connections.push(raw);
  return raw;
}

/** A request head, then its body one byte every TRICKLE_MS. */
async function trickleBody(url: string, head: string[]): Promise<RawConnection> {
  const raw = await tracked(sendRaw(url, [...head, `Content-Length: ${BODY_LENGTH}`]));
  raw.trickle('a'.repeat(BODY_LENGTH), TRICKLE_MS);
  return raw;
}

async function cutByServer(raw: RawConnection, what: string): Promise<void> {
  await eventually(`${what}: the server closes the connection`, () => raw.closed(), {
    timeoutMs: CUT_WITHIN_MS,
    intervalMs: 100,
  });
}

/** The one answer to a whole GET /healthz on its own connection (Connection: close), or undefined if refused. */
async function healthz(url: string): Promise<number | undefined> {
  const raw = await tracked(sendRaw(url, ['GET /healthz HTTP/1.1', 'Host: pv.test', 'Connection: close']));
  await eventually('the answer or the refusal', () => raw.closed(), { intervalMs: 20 });
  return statusOf(raw.received());
}

function assertProblem(received: string, status: number, code: string): void {
  assert.equal(statusOf(received), status, received);
  assert.match(headOf(received), /\r\ncontent-type: application\/problem\+json/);
  assert.equal(jsonBodyOf(received).code, code);
}

describe('REQUEST_TIMEOUT_MS: a request that does not arrive whole in time is cut', () => {
  let server: ServerProcess;
  let url: string;
  before(async () => {
    server = await serverWith({ REQUEST_TIMEOUT_MS: '1000' });
    url = server.url;
  });

  test('a body trickled to POST /v1/otp/send with a key: 408 request_timeout, connection closed', async () => {
    const raw = await trickleBody(url, [
      'POST /v1/otp/send HTTP/1.1',
      'Host: pv.test',
      `Authorization: Bearer ${key}`,
      'Content-Type: application/json',
    ]);
    await cutByServer(raw, 'send');
    assert.ok(raw.sent() < BODY_LENGTH, 'cut before the body was complete');
    assertProblem(raw.received(), 408, 'request_timeout');
  });

  test('a body trickled to POST /v1/otp/send without a key: the 401 closes the connection', async () => {
    const raw = await trickleBody(url, [
      'POST /v1/otp/send HTTP/1.1',
      'Host: pv.test',
      'Content-Type: application/json',
    ]);
    await cutByServer(raw, 'unauthenticated send');
    assert.ok(raw.sent() < BODY_LENGTH, 'cut before the body was complete');
    assertProblem(raw.received(), 401, 'missing_api_key');
    assert.match(headOf(raw.received()), /\r\nconnection: close/, 'the answer says the connection closes');
    // One answer, not a 401 and then a 408 for the same request.
    assert.equal(raw.received().split('HTTP/1.1 ').length, 2, raw.received());
  });

  test('a body trickled to POST /dashboard/signin: 408, connection closed', async () => {
    const raw = await trickleBody(url, [
      'POST /dashboard/signin HTTP/1.1',
      'Host: pv.test',
      'Content-Type: application/x-www-form-urlencoded',
    ]);
    await cutByServer(raw, 'sign-in');
    assert.ok(raw.sent() < BODY_LENGTH, 'cut before the body was complete');
    assertProblem(raw.received(), 408, 'request_timeout');
  });

  test('a body trickled to a carrier webhook: 408, connection closed', async () => {
    const raw = await trickleBody(url, [
      'POST /webhooks/twilio/ca_0000000000000000 HTTP/1.1',
      'Host: pv.test',
      'Content-Type: application/x-www-form-urlencoded',
    ]);
    await cutByServer(raw, 'webhook');
    assert.ok(raw.sent() < BODY_LENGTH, 'cut before the body was complete');
    assertProblem(raw.received(), 408, 'request_timeout');
  });

  test('headers trickled: 408, connection closed', async () => {
    const raw = await tracked(openRaw(url));
    raw.write('GET /healthz HTTP/1.1\r\nHost: pv.test\r\nX-Slow: ');
    raw.trickle('a'.repeat(BODY_LENGTH), TRICKLE_MS);
    await cutByServer(raw, 'headers');
    assert.ok(raw.sent() < BODY_LENGTH, 'cut before the headers were complete');
    assertProblem(raw.received(), 408, 'request_timeout');
  });

  test('the cut requests are not logged as a database outage (their bodies were cut short, not the database)', () => {
    const logs = server.stderr();
    assert.doesNotMatch(logs, /unavailable/, logs.slice(0, 2000));
  });

  test('the limit is per request: a kept-alive connection idle for longer still serves its next request', async () => {
    const head = ['GET /healthz HTTP/1.1', 'Host: pv.test'];
    const raw = await tracked(sendRaw(url, head));
    await eventually('the first answer', () => raw.received().endsWith('{"status":"ok"}'));
    assert.equal(statusOf(raw.received()), 200);
    assert.doesNotMatch(headOf(raw.received()), /connection: close/, 'a whole request keeps its connection');
    // Idle between requests for longer than REQUEST_TIMEOUT_MS and its check: nothing to time out.
    await quietPeriod(2500);
    assert.equal(raw.closed(), false, 'the idle connection is kept');
    const first = raw.received();
    raw.write(`${head.join('\r\n')}\r\n\r\n`);
    await eventually('the second answer', () => raw.received().length > first.length + 100);
    assert.equal(statusOf(raw.received().slice(first.length)), 200);
  });

  test('a whole request refused before its body is read keeps its connection (the body arrived)', async () => {
    const body = JSON.stringify({ phone: '+61491570156' });
    const raw = await tracked(
      sendRaw(
        url,
        [
          'POST /v1/otp/send HTTP/1.1',
          'Host: pv.test',
          'Content-Type: application/json',
          `Content-Length: ${body.length}`,
        ],
        body,
      ),
    );
    await eventually('the answer', () => headOf(raw.received()) !== '' && raw.received().endsWith('}'));
    assertProblem(raw.received(), 401, 'missing_api_key');
    assert.doesNotMatch(headOf(raw.received()), /connection: close/);
  });
});

describe('MAX_CONNECTIONS: connections past the limit are refused until one closes', () => {
  const MAX = 5;
  let server: ServerProcess;
  before(async () => {
    server = await serverWith({ MAX_CONNECTIONS: String(MAX), REQUEST_TIMEOUT_MS: '1000' });
  });

  test('the next connection is closed unanswered; /healthz answers once a slot frees up', async () => {
    const held: RawConnection[] = [];
    for (let i = 0; i < MAX; i++) {
      const raw = await tracked(sendRaw(server.url, ['GET /healthz HTTP/1.1', 'Host: pv.test']));
      await eventually('a held connection answered', () => raw.received().endsWith('{"status":"ok"}'));
      held.push(raw); // kept alive, idle
    }
    const extra = await tracked(sendRaw(server.url, ['GET /healthz HTTP/1.1', 'Host: pv.test']));
    await cutByServer(extra, 'the connection past the limit');
    assert.equal(extra.received(), '', 'refused without an answer');
    assert.equal(await healthz(server.url), undefined, 'still refused while all are held');

    held[0]?.destroy();
    await eventually(
      '/healthz answers once a slot is free',
      async () => (await healthz(server.url)) === 200,
      {
        intervalMs: 100,
      },
    );
    for (const raw of held) raw.destroy();
    await eventually('the refusals are logged', () =>
      server.stderr().includes('connections refused: MAX_CONNECTIONS'),
    );
  });

  test('slow requests holding every slot are cut in time, and the service answers again', async () => {
    const slow = await Promise.all(
      Array.from({ length: MAX }, () =>
        trickleBody(server.url, [
          'POST /v1/otp/send HTTP/1.1',
          'Host: pv.test',
          `Authorization: Bearer ${key}`,
          'Content-Type: application/json',
        ]),
      ),
    );
    for (const raw of slow) await cutByServer(raw, 'a slow request holding a slot');
    await eventually('/healthz answers after the attack', async () => (await healthz(server.url)) === 200, {
      intervalMs: 100,
    });
  });
});

/** `serve` that should refuse to start; one that starts anyway is killed after a minute (and fails the test). */
function refusedStart(settings: Record<string, string>): CliResult {
  const result = spawnSync(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', ...settings },
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('REQUEST_TIMEOUT_MS and MAX_CONNECTIONS are checked at start', () => {
  const refused: Array<[string, string]> = [
    ['REQUEST_TIMEOUT_MS', 'abc'],
    ['REQUEST_TIMEOUT_MS', '-1'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '999'],
    ['REQUEST_TIMEOUT_MS', '300001'],
    ['REQUEST_TIMEOUT_MS', '1.5'],
    ['REQUEST_TIMEOUT_MS', '1500.5'],
    ['REQUEST_TIMEOUT_MS', '1e4'],
    ['REQUEST_TIMEOUT_MS', '0x2710'],
    ['REQUEST_TIMEOUT_MS', '99999999999999999999999'],
    ['REQUEST_TIMEOUT_MS', 'Infinity'],
    ['REQUEST_TIMEOUT_MS', '３００００'],
    ['MAX_CONNECTIONS', 'many'],
    ['MAX_CONNECTIONS', '-5'],
    ['MAX_CONNECTIONS', '0'],
    ['MAX_CONNECTIONS', '2.5'],
    ['MAX_CONNECTIONS', '0x10'],
    ['MAX_CONNECTIONS', '1000001'],
    ['MAX_CONNECTIONS', '1e400'],
    ['MAX_CONNECTIONS', 'NaN'],
  ];
  for (const [name, value] of refused) {
    test(`${name}=${JSON.stringify(value)} is refused with a one-line error naming it`, () => {
      assertCleanFailure(refusedStart({ ...env, [name]: value }), new RegExp(`invalid ${name}`));
    });
  }
});
