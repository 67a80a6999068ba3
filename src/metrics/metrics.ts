// The process's Prometheus metrics (prom-client): one registry, the instruments the service records into, and
// the gauges read when scraped. Every label takes values from a closed set (route patterns, channels, carrier
// names, catalogue codes), never from a request's own text, so a client cannot grow the series without bound.
// Counters are per process: Prometheus sums them across the processes it scrapes (docs/metrics.md).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What a scrape reads from the store: the delivery queue now. */
export interface QueueReading {
  queued: number;
  due: number;
  /** Seconds since the oldest job was queued (0 when none is). */
  oldestAgeSeconds: number;
}

/** The PostgreSQL pool's connections now (absent on SQLite, which has one connection). */
export interface PoolReading {
  total: number;
  idle: number;
  waiting: number;
}

export interface ScrapeSources {
  queue(): Promise<QueueReading>;
  pool?(): PoolReading;
}

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export type SendOutcome = 'handed_over' | 'undelivered' | 'handing_over' | (string & {});

export function createMetrics(options: { store: 'sqlite' | 'postgres' }) {
  const registry = new Registry();
  const registers = [registry];

  const httpDuration = new Histogram({
    name: 'phone_verify_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status (its _count is the request count).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const sends = new Counter({
    name: 'phone_verify_sends_total',
    help: 'Sends answered, by channel, outcome (handed_over, undelivered, handing_over, or the refusal code) and carrier.',
    labelNames: ['channel', 'outcome', 'carrier'] as const,
    registers,
  });
  const checks = new Counter({
    name: 'phone_verify_checks_total',
    help: 'Checks answered, by outcome (verified, wrong_code, the status of a finished verification, or the refusal code).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'phone_verify_delivery_attempts_total',
    help: 'Hand-over attempts to a provider, by channel, carrier and result (handed_over, rejected, transient).',
    labelNames: ['channel', 'carrier', 'result'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'phone_verify_delivery_retries_total',
    help: 'Transient hand-over failures scheduled for another attempt, by channel and carrier.',
    labelNames: ['channel', 'carrier'] as const,
    registers,
  });
  const failovers = new Counter({
    name: 'phone_verify_delivery_failovers_total',
    help: "Hand-over attempts made from another of the workspace's numbers than the code's first (fail-over), by channel.",
    labelNames: ['channel'] as const,
    registers,
  });
  const gaveUp = new Counter({
    name: 'phone_verify_delivery_gave_up_total',
    help: 'Codes whose hand-over was given up (transient failures until the code expired), by channel.',
    labelNames: ['channel'] as const,
    registers,
  });
  const webhookAttempts = new Histogram({
    name: 'phone_verify_webhook_attempt_duration_seconds',
    help: 'Webhook POSTs to endpoints, by result (delivered: a 2xx; rejected: another status; no_answer: refused destination, timeout, connection error); its _count counts them.',
    labelNames: ['result'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const webhooksDisabled = new Counter({
    name: 'phone_verify_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled after five days of failed attempts.',
    registers,
  });
  const queryDuration = new Histogram({
    name: 'phone_verify_db_query_duration_seconds',
    help: 'Time of one database statement, as this process waits for it.',
    labelNames: ['store'] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  const queryTimer = queryDuration.labels(options.store);

  // Label sets repeat: each is bound once (prom-client hashes the labels on every unbound call).
  const httpChildren = new Map<string, ReturnType<typeof httpDuration.labels>>();

  return {
    registry,
    /** One answered HTTP request. `route` is the matched pattern, or undefined when no route matched. */
    request(method: string, route: string | undefined, status: number, seconds: number): void {
      const key = `${method} ${route ?? ''} ${status}`;
      let child = httpChildren.get(key);
      if (!child) {
        child = httpDuration.labels(method, route ?? 'unmatched', String(status));
        httpChildren.set(key, child);
      }
      child.observe(seconds);
    },
    send(channel: string, outcome: SendOutcome, carrier: string): void {
      sends.labels(channel, outcome, carrier).inc();
    },
    check(outcome: string): void {
      checks.labels(outcome).inc();
    },
    deliveryAttempt(
      channel: string,
      carrier: string,
      result: 'handed_over' | 'rejected' | 'transient',
    ): void {
      attempts.labels(channel, carrier, result).inc();
    },
    deliveryRetry(channel: string, carrier: string): void {
      retries.labels(channel, carrier).inc();
    },
    deliveryFailover(channel: string): void {
      failovers.labels(channel).inc();
    },
    deliveryGaveUp(channel: string): void {
      gaveUp.labels(channel).inc();
    },
    /** One webhook POST: its HTTP status (undefined when none came) and how long it took. */
    webhookAttempt(status: number | undefined, seconds: number): void {
      const result =
        status === undefined ? 'no_answer' : status >= 200 && status < 300 ? 'delivered' : 'rejected';
      webhookAttempts.labels(result).observe(seconds);
    },
    webhookDisabled(): void {
      webhooksDisabled.inc();
    },
    /** One database statement's duration, in seconds. */
    query(seconds: number): void {
      queryTimer.observe(seconds);
    },
    /** Process metrics (CPU, memory, event-loop lag, GC) and the gauges read at each scrape. */
    collect(sources: ScrapeSources): void {
      collectDefaultMetrics({ register: registry });
      collectScraped(registry, sources);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

function collectScraped(registry: Registry, sources: ScrapeSources): void {
  const registers = [registry];
  // prom-client collects every metric of a scrape at once: the queue gauges share one read of the store.
  let reading: Promise<QueueReading | undefined> | undefined;
  const readQueue = () => {
    reading ??= sources
      .queue()
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const queueGauge = (name: string, help: string, value: (r: QueueReading) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const r = await readQueue();
        this.set(r === undefined ? Number.NaN : value(r));
      },
    });
  new Gauge({
    name: 'phone_verify_store_readable',
    help: 'Whether this scrape could read the store (1) or not (0, and the queue gauges are NaN).',
    registers,
    async collect() {
      this.set((await readQueue()) === undefined ? 0 : 1);
    },
  });
  queueGauge(
    'phone_verify_delivery_jobs_queued',
    'Codes committed whose hand-over is not made yet (delivery jobs), all processes together.',
    (r) => r.queued,
  );
  queueGauge('phone_verify_delivery_jobs_due', 'Delivery jobs whose next attempt is due now.', (r) => r.due);
  queueGauge(
    'phone_verify_delivery_jobs_oldest_age_seconds',
    'Age of the oldest delivery job, in seconds (0 when none waits).',
    (r) => r.oldestAgeSeconds,
  );
  const pool = sources.pool;
  if (pool) {
    new Gauge({
      name: 'phone_verify_db_pool_connections',
      help: "The PostgreSQL pool's connections by state (idle, busy), and the requests waiting for one (waiting).",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const r = pool();
        this.labels('idle').set(r.idle);
        this.labels('busy').set(r.total - r.idle);
        this.labels('waiting').set(r.waiting);
      },
    });
  }
}
