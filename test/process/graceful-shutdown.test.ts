// Graceful shutdown (scale-out issue, item 6): on SIGTERM the process stops accepting connections, finishes
// the request in flight (it is answered in full and its work committed), closes its pool and exits 0.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { after, test } from 'node:test';
import { cliSuiteEnv, seedWithCli } from '../helpers/cli-setup.js';
import { eventually } from '../helpers/eventually.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';

const servers: ServerProcess[] = [];
after(async () => {
  for (const server of servers) await server.stop('SIGKILL');
});

test('SIGTERM: no new connections, the in-flight request completes (201, committed), exit code 0', async () => {
  const { env } = cliSuiteEnv();
  const { key } = seedWithCli(env);
  // Debug: the request's arrival is logged there (at info, only its completion is).
  const server = await startServer({ ...env, LOG_LEVEL: 'debug' });
  servers.push(server);
  let log = '';
  server.child.stderr?.on('data', (d) => {
    log += d;
  });

  // A send whose body arrives in two parts: the request is in flight while the signal comes.
  const body = JSON.stringify({ phone: '+61412399001', channel: 'sms' });
  const url = new URL('/v1/otp/send', server.url);
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const response = once(req, 'response');
  req.write(body.slice(0, 10));
  // Wait until the server has taken the request (its log says so).
  await eventually('the server receiving the request', () => log.includes('/v1/otp/send'));

  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  // New connections are refused once the listener is closed (a wait for the close to begin).
  await eventually('a new connection refused during shutdown', () =>
    fetch(`${server.url}/healthz`).then(
      () => false,
      () => true,
    ),
  );

  req.end(body.slice(10));
  const [res] = (await response) as [import('node:http').IncomingMessage];
  let text = '';
  for await (const chunk of res) text += chunk;
  assert.equal(res.statusCode, 201, text);
  const sent = JSON.parse(text) as { id: string; status: string };
  assert.equal(sent.status, 'pending');

  const [code, signal] = await exited;
  assert.equal(signal, null);
  assert.equal(code, 0);

  // The in-flight request's work was committed: the message is in the outbox.
  const outbox = cliJson<{ verification_id: string }[]>(['outbox', '--to', '+61412399001'], env);
  assert.equal(outbox[0]?.verification_id, sent.id);
});
