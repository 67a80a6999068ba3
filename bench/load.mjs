// The load generator: one scenario against one server, driven with autocannon, in a process of its own (pinned
// to another core than the server's by bench/run.mjs). Usage: node bench/load.mjs CONFIG.json; prints one JSON
// line, the scenario's figures. CONFIG: { scenario, url, key, duration | amount, connections, overallRate?, pool?,
// prefix?, databaseUrl? }. Scenarios:
//   ceiling / ping   GET /v1/ping
//   send             POST /v1/otp/send, SMS, each to a fresh number (prefix + a counter)
//   check-wrong      POST /v1/otp/check with a wrong code, over a pool of pending verifications (at most
//                    WRONG_PER_VERIFICATION per verification, so every check meets a pending code)
//   check-correct    POST /v1/otp/check with the right code (read from the outbox), once per verification
//   ping-paced       GET /v1/ping at a fixed arrival rate (overallRate a second), evenly spaced, open loop: what
//                    the dashboard's phase runs to see whether a page stalls the API (a closed loop's worst
//                    latency is its own queue of 32 requests)
//   mixed            send to a fresh number, then check: the correct code of an earlier send of this flow
//                    once its code is in the outbox, else a wrong code for the send just made; flows arrive
//                    at a fixed rate (overallRate / 2 a second: two requests a flow), evenly spaced, open
//                    loop (bench/paced.mjs: autocannon's rate limit sends in bursts)
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { paced } from './paced.mjs';

const WRONG_PER_VERIFICATION = 8;

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const auth = { authorization: `Bearer ${config.key}`, 'content-type': 'application/json' };

/**
 * Fresh numbers: prefix + 6 digits, each used once, spread over the prefix's thousand ranges (the counter times a
 * stride coprime with 10^6, so consecutive sends land in different ranges) as real users' numbers are. Consecutive
 * numbers would walk one range after another, which is what the pumping guard exists to refuse. Skips the
 * development provider's failure endings 0998/0999.
 */
function numbers(prefix) {
  const STRIDE = 7919; // prime, so n * STRIDE mod 10^6 visits every 6-digit suffix once
  let n = 0;
  return () => {
    for (;;) {
      const suffix = (n++ * STRIDE) % 1_000_000;
      if (suffix % 10_000 === 998 || suffix % 10_000 === 999) continue;
      return `${prefix}${String(suffix).padStart(6, '0')}`;
    }
  };
}

function sendBody(phone) {
  return JSON.stringify({ phone, channel: 'sms', max_attempts: 10, ttl_seconds: 900 });
}

function wrong(code) {
  const last = Number(code.at(-1));
  return `${code.slice(0, -1)}${(last + 1) % 10}`;
}

function codeOf(body) {
  return /(\d{4,8})\s*$/.exec(body)?.[1];
}

async function run() {
  // A count of requests (smoke runs: no dependence on how fast the machine is) or a duration.
  const length = config.amount ? { amount: config.amount } : { duration: config.duration };
  // autocannon refuses more connections than requests.
  const connections = Math.min(config.connections ?? 10, config.amount ?? Number.POSITIVE_INFINITY);
  const base = { url: config.url, ...length, connections };
  const extra = {};
  let cleanup = async () => {};
  let options;
  switch (config.scenario) {
    case 'ceiling':
    case 'ping':
      options = { ...base, requests: [{ method: 'GET', path: '/v1/ping', headers: auth }] };
      break;
    case 'send': {
      const next = numbers(config.prefix);
      options = {
        ...base,
        requests: [
          {
            method: 'POST',
            path: '/v1/otp/send',
            headers: auth,
            setupRequest: (req) => ({ ...req, body: sendBody(next()) }),
          },
        ],
      };
      break;
    }
    case 'ping-paced': {
      const result = await paced({
        url: config.url,
        headers: auth,
        rate: config.overallRate,
        seconds: config.duration,
        amount: config.amount,
        connections: config.connections ?? 10,
        warmupSeconds: config.warmupSeconds ?? 0,
        async flow(request) {
          await request('GET', '/v1/ping');
        },
      });
      return { scenario: config.scenario, ...result, target_rate: config.overallRate };
    }
    case 'check-wrong':
    case 'check-correct': {
      const pool = JSON.parse(readFileSync(config.pool, 'utf8'));
      const correct = config.scenario === 'check-correct';
      const limit = pool.length * (correct ? 1 : WRONG_PER_VERIFICATION);
      let i = 0;
      // What the checks answered: every correct check should verify, no wrong one.
      const counts = { verified: 0, not_verified: 0 };
      options = {
        ...base,
        // Each verification takes its share of checks, then the run ends even before its duration.
        maxOverallRequests: limit,
        ...(config.amount ? { amount: Math.min(config.amount, limit) } : {}),
        requests: [
          {
            method: 'POST',
            path: '/v1/otp/check',
            headers: auth,
            setupRequest: (req) => {
              const entry = pool[Math.min(i, limit - 1) % pool.length];
              i++;
              return {
                ...req,
                body: JSON.stringify({
                  verification_id: entry.id,
                  code: correct ? entry.code : wrong(entry.code),
                }),
              };
            },
            onResponse: (status, body) => {
              if (status !== 200) return;
              if (JSON.parse(body).verified === true) counts.verified++;
              else counts.not_verified++;
            },
          },
        ],
      };
      extra.pool = pool.length;
      extra.counts = counts;
      break;
    }
    case 'mixed': {
      const { openStore } = await import('../dist/store/database.js');
      const store = await openStore(config.databaseUrl);
      const next = numbers(config.prefix);
      const awaiting = new Set();
      const ready = [];
      const counts = { correct: 0, wrong: 0, no_send: 0 };
      // The outbox read forward from the last message seen (its seq index): each poll reads only what is new.
      let polling = false;
      let lastSeq = 0;
      const poll = setInterval(async () => {
        if (polling || awaiting.size === 0) return;
        polling = true;
        try {
          const rows = await store.db
            .selectFrom('outbox_messages')
            .select(['verification_id', 'body', 'seq'])
            .where('seq', '>', lastSeq)
            .orderBy('seq')
            .limit(2000)
            .execute();
          for (const row of rows) {
            lastSeq = Math.max(lastSeq, row.seq);
            if (!awaiting.delete(row.verification_id)) continue;
            const code = codeOf(row.body);
            if (code) ready.push({ id: row.verification_id, code });
          }
        } finally {
          polling = false;
        }
      }, 50);
      cleanup = async () => {
        clearInterval(poll);
        await store.close();
      };
      // Flows arrive at half the overall rate (two requests a flow), evenly spaced: see bench/paced.mjs.
      const result = await paced({
        url: config.url,
        headers: auth,
        rate: config.overallRate / 2,
        seconds: config.duration,
        amount: config.amount ? Math.ceil(config.amount / 2) : undefined,
        connections: config.connections ?? 10,
        warmupSeconds: config.warmupSeconds ?? 0,
        async flow(request) {
          const sent = await request('POST', '/v1/otp/send', sendBody(next()));
          const id = sent.status === 201 ? JSON.parse(sent.body).id : undefined;
          if (id) awaiting.add(id);
          const earlier = ready.shift();
          let check;
          if (earlier) {
            counts.correct++;
            check = { verification_id: earlier.id, code: earlier.code };
          } else if (id) {
            counts.wrong++;
            check = { verification_id: id, code: '000000' };
          } else {
            counts.no_send++;
            check = { verification_id: 'ver_none', code: '000000' };
          }
          await request('POST', '/v1/otp/check', JSON.stringify(check));
        },
      });
      await cleanup();
      return {
        scenario: config.scenario,
        ...result,
        target_rate: config.overallRate,
        send_peak: config.sendPeak,
        counts,
      };
    }
    default:
      throw new Error(`unknown scenario ${config.scenario}`);
  }
  // Throughput over the time the answers took: from the start to the last answer. autocannon's own duration
  // runs on to its next one-second tick, which understates a scenario that ends early (a pool used up) by up to
  // a second, and every other by the tail after its last answer.
  const started = performance.now();
  let lastAnswer = started;
  const tracker = autocannon(options);
  tracker.on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await tracker;
  await cleanup();
  const total = result.requests.total;
  const seconds = Math.max((lastAnswer - started) / 1000, 0.001);
  return {
    scenario: config.scenario,
    requests: total,
    seconds: Math.round(seconds * 1000) / 1000,
    rps: total / seconds,
    latency: {
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    status_codes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]),
    ),
    ...(config.overallRate ? { target_rate: config.overallRate } : {}),
    ...extra,
  };
}

if (process.argv[2]) {
  const out = await run();
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}
