// The benchmark's smoke mode (`npm run bench -- --smoke`): a short run of every scenario against this suite's
// store, through the real built service and the real load generator. It checks that every scenario produced
// figures and that the run wrote its results and chart; it holds the figures to no threshold (that is
// `npm run bench`, which is never part of the tests).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PG_ADMIN_URL, TEST_STORE } from '../helpers/database.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCENARIOS = ['ping', 'send', 'check-wrong', 'check-correct', 'mixed'];

interface ScenarioResult {
  requests: number;
  rps: number;
  ratio: number;
  latency: { p50: number; p99: number; max: number };
  status_codes: Record<string, number>;
  server: {
    cpu_percent: number | null;
    rss_max_mb: number | null;
    cpu_ms_per_request: number | null;
    preempted_per_request: number | null;
  };
  database?: { cpu_percent: number | null; cpu_ms_per_request: number | null };
  load_generator: { cpu_percent: number | null };
  counts?: Record<string, number>;
}

const DASHBOARD_PAGES = [
  'overview_day',
  'overview_week',
  'log_phone_search_exact',
  'log_phone_search_partial',
];

interface DashboardRead {
  pages: Record<string, { ms: number[]; max_ms: number }>;
  ping_during: { rate: number; errors: number; non2xx: number; latency: { p50: number; max: number } };
  ping_alone: { rate: number; errors: number; non2xx: number };
  server: { rss_max_mb: number | null };
}

describe(`bench --smoke (${TEST_STORE})`, { timeout: 300_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), 'pv-bench-smoke-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  /** One smoke run with `extra` arguments into a folder of its own: its results.json. */
  function smokeRun(name: string, extra: string[], timeout: number) {
    const dir = join(out, name);
    const run = spawnSync(
      process.execPath,
      [
        'bench/run.mjs',
        '--smoke',
        '--duration',
        '1',
        '--no-build',
        '--stores',
        TEST_STORE,
        '--out',
        dir,
        ...extra,
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BENCH_PG_URL: PG_ADMIN_URL }, timeout },
    );
    assert.equal(run.status, 0, `bench failed:\n${run.stderr}`);
    return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
  }

  test('every scenario produces figures; results.json and chart.svg are written', () => {
    const results = smokeRun('standard', [], 110_000);
    assert.equal(results.mode, 'smoke');
    assert.deepEqual(results.targets, []);
    assert.ok(results.ceiling.rps > 0);
    const store = results.stores[TEST_STORE];
    assert.ok(store && !store.skipped, `no ${TEST_STORE} results: ${JSON.stringify(store)}`);
    assert.deepEqual(Object.keys(store.scenarios).sort(), [...SCENARIOS].sort());
    for (const name of SCENARIOS) {
      const r = store.scenarios[name] as ScenarioResult;
      assert.ok(r.requests > 0 && r.rps > 0, `${name}: no requests`);
      assert.ok(r.ratio > 0, `${name}: no ratio to the ceiling`);
      for (const p of ['p50', 'p99', 'max'] as const) assert.equal(typeof r.latency[p], 'number');
      // A 4xx would be the benchmark's own mistake (a limit it did not raise, a wrong request).
      const clientErrors = Object.keys(r.status_codes).filter((c) => c.startsWith('4'));
      assert.deepEqual(clientErrors, [], `${name}: ${JSON.stringify(r.status_codes)}`);
      assert.ok((r.server.rss_max_mb ?? 0) > 0, `${name}: no server memory sampled`);
      // What each process cost (read from /proc, as the memory is): the service's CPU a request, how often it was
      // preempted, the load generator's CPU, and a PostgreSQL server's on this machine (this suite's is local).
      assert.ok((r.server.cpu_ms_per_request ?? -1) >= 0, `${name}: ${JSON.stringify(r.server)}`);
      assert.ok((r.server.preempted_per_request ?? -1) >= 0, `${name}: ${JSON.stringify(r.server)}`);
      assert.ok((r.load_generator.cpu_percent ?? -1) >= 0, `${name}: no load generator CPU sampled`);
      if (TEST_STORE === 'postgres') {
        assert.ok((r.database?.cpu_ms_per_request ?? -1) >= 0, `${name}: ${JSON.stringify(r.database)}`);
      } else {
        assert.equal(r.database, undefined, `${name}: SQLite has no database server`);
      }
    }
    // The mixed flow arrives at half the send peak, the lower of its two measurements: two requests a flow.
    const mixed = store.scenarios.mixed;
    const lowerPeak = Math.min(store.scenarios.send.rps, mixed.send_peak_short_run);
    assert.equal(mixed.send_peak, lowerPeak);
    assert.equal(mixed.target_rate, Math.max(2, Math.round(lowerPeak)));
    // The checks do what they say: correct codes verify, wrong ones do not.
    assert.equal(store.scenarios['check-correct'].counts.not_verified, 0);
    assert.equal(store.scenarios['check-wrong'].counts.verified, 0);
    assert.equal(store.limits.request_limit_per_minute, 1_000_000);
    assert.match(
      readFileSync(join(out, 'standard', 'chart.svg'), 'utf8'),
      /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/,
    );
  });

  test('--long: the dashboard is timed at rest and after the burst, while pings arrive at a fixed rate', () => {
    const results = smokeRun('long', ['--long', '--rows', '300'], 170_000);
    const store = results.stores[TEST_STORE];
    assert.equal(store.prefill.rows, 300);
    assert.deepEqual(Object.keys(store.dashboard), ['at_rest', 'after_burst']);
    for (const [phase, read] of Object.entries(store.dashboard) as [string, DashboardRead][]) {
      assert.deepEqual(Object.keys(read.pages).sort(), [...DASHBOARD_PAGES].sort(), phase);
      for (const [page, { ms, max_ms }] of Object.entries(read.pages)) {
        assert.equal(ms.length, 3, `${phase} ${page}: three timed loads`);
        assert.ok(ms.every((x) => x > 0) && max_ms === Math.max(...ms), `${phase} ${page}: ${ms}`);
      }
      // Open loop at a fixed rate: every ping answered 200, its latency measured.
      assert.equal(read.ping_during.rate, 1000);
      assert.equal(read.ping_during.errors + read.ping_during.non2xx, 0, phase);
      assert.ok(read.ping_during.latency.max >= read.ping_during.latency.p50, phase);
      // The same pings with no page read, for comparison.
      assert.equal(read.ping_alone.rate, 1000);
      assert.equal(read.ping_alone.errors + read.ping_alone.non2xx, 0, phase);
      assert.ok((read.server.rss_max_mb ?? 0) > 0, `${phase}: no server memory sampled`);
    }
    assert.ok(store.server_whole_run.rss_max_mb > 0);
  });
});
