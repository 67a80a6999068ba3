// An open-loop load at a fixed arrival rate (what the mixed flow needs), which autocannon does not make:
// autocannon's overallRate gives each connection a quota per second and spends it back to back from the start
// of each second, so requests arrive in bursts of the connection count and the latency measured is that of a
// saturated server for part of every second. Here arrivals are spaced evenly (1 / rate apart), each flow is
// started at its scheduled time on a free keep-alive connection (or queued for one), and a request's latency
// counts from the moment it was due, so a server (or a load generator) falling behind shows in the figures
// rather than being hidden by a slower send rate (no coordinated omission).
import http from 'node:http';

/**
 * Runs `flow(request)` for arrivals at `rate` a second for `seconds` (or `amount` flows in all). `flow` makes
 * its requests through `request(method, path, body)`, which resolves to { status, body }; the first request of
 * a flow is due at the flow's arrival, a later one when it is made. The first `warmupSeconds` run at the same
 * rate but are not counted: the server settles into the flow (code paths compiled, the previous scenario's
 * writes checkpointed) before its latency is read.
 */
export async function paced({ url, headers, rate, seconds, amount, connections, warmupSeconds = 0, flow }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  const statusCodes = {};
  let errors = 0;
  let non2xx = 0;

  let measureFrom = Number.POSITIVE_INFINITY;
  const trace = [];
  function request(method, path, body, due = performance.now()) {
    return new Promise((resolve) => {
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method,
          path,
          headers: { ...headers, 'content-length': Buffer.byteLength(body ?? '') },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            if (due >= measureFrom) {
              latencies.push(performance.now() - due);
              if (process.env.PACED_TRACE) trace.push([due - measureFrom, performance.now() - due, path]);
              statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
              if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
            }
            resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      req.on('error', () => {
        if (due >= measureFrom) errors++;
        resolve({ status: 0, body: '' });
      });
      req.end(body);
    });
  }

  const interval = 1000 / rate;
  const total = (amount ?? Math.floor(rate * seconds)) + Math.floor(rate * warmupSeconds);
  const start = performance.now();
  measureFrom = start + warmupSeconds * 1000;
  // The flows still running are counted, not kept: a list of every flow's promise (tens of thousands a run) lived
  // to the end in the old generation, and the collections that marked it paused this process for 10 to 20 ms, counted
  // as latency of every request due meanwhile (docs/benchmarks.md, "The load generator's own pauses").
  let running = 0;
  let started = 0;
  let failed;
  let allEnded;
  const ended = new Promise((resolve) => {
    allEnded = resolve;
  });
  const end = () => {
    running--;
    if (running === 0 && started >= total) allEnded();
  };
  await new Promise((done) => {
    const tick = () => {
      const now = performance.now();
      // Every arrival whose time has come starts now (a late timer starts several, each with its own due time).
      while (started < total && start + started * interval <= now) {
        const due = start + started * interval;
        let first = true;
        running++;
        flow((method, path, body) => {
          const at = first ? due : performance.now();
          first = false;
          return request(method, path, body, at);
        }).then(end, (err) => {
          failed ??= err;
          end();
        });
        started++;
      }
      if (started >= total) done();
      else setTimeout(tick, Math.max(0, start + started * interval - performance.now()));
    };
    tick();
  });
  if (running > 0) await ended;
  if (failed) throw failed;
  const elapsed = (performance.now() - measureFrom) / 1000;
  agent.destroy();

  if (process.env.PACED_TRACE)
    (await import('node:fs')).writeFileSync(process.env.PACED_TRACE, JSON.stringify(trace));
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const ms = (x) => Math.round(x * 100) / 100;
  return {
    warmup_s: warmupSeconds,
    requests: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    latency: {
      p50: ms(at(0.5)),
      p99: ms(at(0.99)),
      max: ms(latencies.at(-1) ?? 0),
      mean: ms(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
    },
    errors,
    timeouts: 0,
    non2xx,
    status_codes: statusCodes,
  };
}
