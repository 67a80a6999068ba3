// Prometheus metrics (docs/metrics.md): GET /metrics on the main port only behind METRICS_TOKEN, what sends,
// checks and hand-overs count, labels from closed sets only, the delivery queue and the pool read at scrape time.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { client, codeFor, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { assertProblem, sendOk, wrongCode } from '../helpers/verification.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one series in the text exposition (labels in the order the registry writes them). */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics on the main port', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: ReturnType<typeof client>;
  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  };

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock, metricsToken: TOKEN });
    t.services.metrics.collect({ queue: () => t.services.dispatcher.queue(), pool: t.store.poolStats });
    t.store.observeQueries((seconds) => t.services.metrics.query(seconds));
    api = client(t.app, (await seedWorkspace(t.services)).key);
  });
  after(() => t.close());

  test('is not served without METRICS_TOKEN', async () => {
    const plain = await createTestApp();
    try {
      const res = await plain.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 404);
    } finally {
      await plain.close();
    }
  });

  test('refuses a missing, wrong or odd token with 401 invalid_metrics_token and a Bearer challenge', async () => {
    const attempts: (string | undefined)[] = [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      `Bearer ${'a'.repeat(6000)}`,
      'Bearer t\u00e9st\u200b',
      `Bearer ${TOKEN} ${TOKEN}`,
    ];
    for (const authorization of attempts) {
      const headers = authorization === undefined ? {} : { authorization };
      const res = await t.app.inject({ url: '/metrics', headers });
      const problem = assertProblem(res, 401, 'invalid_metrics_token', undefined, String(authorization));
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
      assert.ok(!JSON.stringify(problem).includes(TOKEN), 'the token is never echoed');
    }
  });

  test('answers the text exposition format, with process metrics and the event-loop lag', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      assert.match(res.body, new RegExp(`^${name} `, 'm'), name);
    }
  });

  test('counts sends by channel, outcome and carrier; refusals by their code and reason', async () => {
    await sendOk(api, { phone: '+61412000001', channel: 'sms' });
    await sendOk(api, { phone: '+61412000002', channel: 'voice' });
    await sendOk(api, { phone: '+61412000999', channel: 'sms' }); // the development provider rejects …0999
    assertProblem(await api.send({ phone: '+19005551234', channel: 'sms' }), 403, 'destination_blocked');
    const text = await scrape();
    const sends = (labels: string) => seriesValue(text, `phone_verify_sends_total{${labels}}`);
    assert.equal(sends('channel="sms",outcome="handed_over",carrier="development"'), 1);
    assert.equal(sends('channel="voice",outcome="handed_over",carrier="development"'), 1);
    assert.equal(sends('channel="sms",outcome="undelivered",carrier="development"'), 1);
    assert.equal(sends('channel="sms",outcome="destination_blocked:number_type",carrier="none"'), 1);
    const attempts = (labels: string) => seriesValue(text, `phone_verify_delivery_attempts_total{${labels}}`);
    assert.equal(attempts('channel="sms",carrier="development",result="handed_over"'), 1);
    assert.equal(attempts('channel="sms",carrier="development",result="rejected"'), 1);
    assert.ok(!text.includes('+61412'), 'no number is ever a label');
  });

  test('counts checks by outcome: a wrong code, a right one, a finished verification, a refusal', async () => {
    const phone = '+61412000003';
    const sent = await sendOk(api, { phone, channel: 'sms' });
    const code = await codeFor(t.services, phone);
    assert.equal((await api.check({ verification_id: sent.id, code: wrongCode(code) })).statusCode, 200);
    assert.equal((await api.check({ verification_id: sent.id, code })).statusCode, 200);
    assert.equal((await api.check({ verification_id: sent.id, code })).statusCode, 200);
    assertProblem(await api.check({ verification_id: 'ver_nope', code: '123456' }), 404, 'not_found');
    const text = await scrape();
    assert.equal(seriesValue(text, 'phone_verify_checks_total{outcome="wrong_code"}'), 1);
    assert.equal(seriesValue(text, 'phone_verify_checks_total{outcome="verified"}'), 2);
    assert.equal(seriesValue(text, 'phone_verify_checks_total{outcome="not_found"}'), 1);
  });

  test('labels requests by route pattern: ids and unknown paths never make new series', async () => {
    for (let i = 0; i < 30; i++) {
      await api.get(`ver_${i}xyz`);
      await t.app.inject({ url: `/nowhere/${i}/${'z'.repeat(i)}` });
    }
    const text = await scrape();
    const routes = new Set(
      [...text.matchAll(/^phone_verify_http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map(
        (m) => m[1],
      ),
    );
    assert.ok(routes.has('/v1/otp/:id'), [...routes].join(', '));
    assert.ok(routes.has('unmatched'));
    assert.ok(
      ![...routes].some((r) => r?.includes('ver_') || r?.includes('nowhere')),
      [...routes].join(', '),
    );
    assert.equal(
      seriesValue(
        text,
        'phone_verify_http_request_duration_seconds_count{method="GET",route="/v1/otp/:id",status="404"}',
      ),
      30,
    );
  });

  test("reads the delivery queue at scrape time: jobs waiting, due, and the oldest one's age", async () => {
    const now = clock.now();
    const job = (id: string, createdAgoMs: number, dueInMs: number) => ({
      verification_id: id,
      workspace_id: 'ws_none',
      sealed_code: 'x',
      attempts: 1,
      next_attempt_at: now + dueInMs,
      lease_until: 0,
      lease_token: null,
      last_error: null,
      created_at: now - createdAgoMs,
    });
    await t.store.db
      .insertInto('delivery_jobs')
      .values([job('ver_metrics_a', 120_000, -1000), job('ver_metrics_b', 5_000, 60_000)])
      .execute();
    await t.services.committed();
    try {
      const text = await scrape();
      assert.equal(seriesValue(text, 'phone_verify_store_readable'), 1);
      assert.equal(seriesValue(text, 'phone_verify_delivery_jobs_queued'), 2);
      assert.equal(seriesValue(text, 'phone_verify_delivery_jobs_due'), 1);
      assert.equal(seriesValue(text, 'phone_verify_delivery_jobs_oldest_age_seconds'), 120);
    } finally {
      await t.store.db.deleteFrom('delivery_jobs').where('workspace_id', '=', 'ws_none').execute();
      await t.services.committed();
    }
  });

  test('times database statements, and shows the pool where there is one (PostgreSQL)', async () => {
    const text = await scrape();
    const store = t.store.dialect;
    assert.ok((seriesValue(text, `phone_verify_db_query_duration_seconds_count{store="${store}"}`) ?? 0) > 0);
    if (store === 'postgres') {
      // The scrape's own queue read may be taking a connection at that moment: each state is a count, no more.
      for (const state of ['idle', 'busy', 'waiting']) {
        const value = seriesValue(text, `phone_verify_db_pool_connections{state="${state}"}`);
        assert.ok(value !== undefined && value >= 0 && value <= 4, `${state}: ${value}`);
      }
    } else {
      assert.ok(!text.includes('phone_verify_db_pool_connections'));
    }
  });

  test('concurrent scrapes read the queue once each and agree', async () => {
    const texts = await Promise.all(Array.from({ length: 8 }, () => scrape()));
    for (const text of texts) assert.equal(seriesValue(text, 'phone_verify_store_readable'), 1);
  });

  test('every metric that docs/metrics.md and the Grafana dashboard name is one the service exposes', async () => {
    const text = await scrape();
    const exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const docs = join(import.meta.dirname, '..', '..', 'docs');
    for (const file of ['metrics.md', 'grafana/phone-verify.json']) {
      const named = new Set(
        [
          ...readFileSync(join(docs, file), 'utf8').matchAll(
            /\b((?:phone_verify|nodejs|process)_[a-z0-9_]+)/g,
          ),
        ]
          .map((m) => String(m[1]).replace(/_(bucket|count|sum)$/, ''))
          .filter((name) => !name.endsWith('_')),
      );
      assert.ok(named.size > 10, file);
      // The pool is PostgreSQL's alone.
      if (t.store.dialect === 'sqlite') named.delete('phone_verify_db_pool_connections');
      for (const name of named) assert.ok(exposed.has(name), `${file} names ${name}, which is not exposed`);
    }
  });
});

describe('webhook attempts in the metrics', () => {
  test('each POST counts by result and the disabled endpoints are counted', async () => {
    const t = await createTestApp({ metricsToken: TOKEN });
    try {
      const metrics = t.services.metrics;
      metrics.webhookAttempt(204, 0.01);
      metrics.webhookAttempt(500, 0.02);
      metrics.webhookAttempt(undefined, 10);
      metrics.webhookDisabled();
      const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      const count = (result: string) =>
        seriesValue(res.body, `phone_verify_webhook_attempt_duration_seconds_count{result="${result}"}`);
      assert.equal(count('delivered'), 1);
      assert.equal(count('rejected'), 1);
      assert.equal(count('no_answer'), 1);
      assert.equal(seriesValue(res.body, 'phone_verify_webhook_endpoints_disabled_total'), 1);
    } finally {
      await t.close();
    }
  });
});
