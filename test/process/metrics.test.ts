// METRICS_PORT and METRICS_TOKEN on a real serving process: the metrics listener of its own (off the public
// port), what it answers and refuses, its end with the process, and the start-up refusals of bad settings.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { freshEnv } from '../helpers/cli-env.js';
import { seedWithCli } from '../helpers/cli-setup.js';
import { type ServerProcess, serveExpectingRefusal, startServer } from '../helpers/process.js';

/** A raw request: any method, any path, the status and body as they come. */
async function fetchRaw(
  url: string,
  method = 'GET',
): Promise<{ status: number; body: string; type: string }> {
  const req = request(url, { method });
  req.end();
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  let body = '';
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) };
}

describe('METRICS_PORT: a metrics listener of its own', () => {
  const { dir, env } = freshEnv();
  let server: ServerProcess;
  let metricsUrl: string;

  before(async () => {
    const { key } = seedWithCli(env);
    server = await startServer({ ...env, METRICS_PORT: '0' });
    metricsUrl = String(server.started.metrics_url);
    const res = await fetch(`${server.url}/v1/otp/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '+61412345678', channel: 'sms' }),
    });
    assert.equal(res.status, 201, await res.text());
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('serve --json names the listener, on another port than the API', () => {
    assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.notEqual(new URL(metricsUrl).port, new URL(server.url).port);
  });

  test('GET /metrics answers the exposition format with what the process did', async () => {
    const res = await fetchRaw(metricsUrl);
    assert.equal(res.status, 200);
    assert.match(res.type, /^text\/plain; version=0\.0\.4/);
    assert.match(
      res.body,
      /^phone_verify_sends_total\{channel="sms",outcome="handed_over",carrier="development"\} 1$/m,
    );
    assert.match(
      res.body,
      /^phone_verify_http_request_duration_seconds_count\{method="POST",route="\/v1\/otp\/send",status="201"\} 1$/m,
    );
    assert.match(res.body, /^phone_verify_delivery_jobs_queued 0$/m);
    assert.match(res.body, /^nodejs_eventloop_lag_seconds /m);
  });

  test('answers nothing else: other paths and methods are 404', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/metrics/x'],
      ['POST', '/metrics'],
      ['GET', '/v1/ping'],
      ['GET', `/metrics%00`],
    ] as const) {
      const res = await fetchRaw(new URL(path, metricsUrl).toString(), method);
      assert.equal(res.status, 404, `${method} ${path}`);
    }
    const query = await fetchRaw(`${metricsUrl}?name[]=x`);
    assert.equal(query.status, 200);
  });

  test('the public port does not serve the metrics without METRICS_TOKEN', async () => {
    assert.equal((await fetchRaw(`${server.url}/metrics`)).status, 404);
  });

  test('a burst of concurrent scrapes is answered, each whole', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => fetchRaw(metricsUrl)));
    for (const res of all) {
      assert.equal(res.status, 200);
      assert.match(res.body, /^phone_verify_store_readable 1$/m);
    }
  });

  test('the listener ends with the process (SIGTERM)', async () => {
    const extra = await startServer({ ...env, METRICS_PORT: '0' });
    const url = String(extra.started.metrics_url);
    assert.equal((await fetchRaw(url)).status, 200);
    assert.equal(await extra.stop('SIGTERM'), 0);
    await assert.rejects(fetchRaw(url), /ECONNREFUSED/);
  });
});

describe('METRICS_TOKEN on a real process', () => {
  const { dir, env } = freshEnv();
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('serves /metrics on the main port for the bearer token only; no listener of its own', async () => {
    const token = 'a-long-enough-metrics-token-42';
    const server = await startServer({ ...env, METRICS_TOKEN: token });
    try {
      assert.equal(server.started.metrics_url, undefined);
      assert.equal((await fetchRaw(`${server.url}/metrics`)).status, 401);
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^process_cpu_seconds_total /m);
      assert.ok(!server.stderr().includes(token), 'the token is never logged');
    } finally {
      await server.stop();
    }
  });

  test('bad settings stop the start with a one-line reason', async () => {
    for (const [name, value, reason] of [
      ['METRICS_PORT', 'abc', /invalid METRICS_PORT/],
      ['METRICS_PORT', '70000', /invalid METRICS_PORT/],
      ['METRICS_PORT', '-1', /invalid METRICS_PORT/],
      ['METRICS_PORT', '9.5', /invalid METRICS_PORT/],
      ['METRICS_TOKEN', 'short', /invalid METRICS_TOKEN/],
      ['METRICS_TOKEN', 'has spaces in the middle of it', /invalid METRICS_TOKEN/],
      ['METRICS_TOKEN', `${'x'.repeat(1025)}`, /invalid METRICS_TOKEN/],
      ['METRICS_TOKEN', 'tøken-with-unicode-ünïcode', /invalid METRICS_TOKEN/],
    ] as const) {
      const result = await serveExpectingRefusal({ ...env, [name]: value });
      assert.equal(result.started, false, `${name}=${value} started`);
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, reason, `${name}=${value}: ${result.stderr}`);
      assert.ok(!result.stderr.includes('    at '), `no stack trace: ${result.stderr}`);
    }
  });

  test('a metrics port already taken stops the start, saying so', async () => {
    const first = await startServer({ ...env, METRICS_PORT: '0' });
    try {
      const port = new URL(String(first.started.metrics_url)).port;
      const result = await serveExpectingRefusal({ ...env, METRICS_PORT: port });
      assert.equal(result.started, false);
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, /EADDRINUSE|in use/);
    } finally {
      await first.stop();
    }
  });
});
