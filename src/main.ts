// The serving process: config, store, the sealed-data check, app, listen, sweeper, graceful close on SIGTERM/SIGINT.
import { setFlagsFromString } from 'node:v8';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, LOG_REDACT_PATHS } from './app.js';
import type { Config } from './config.js';
import { connectionLimit } from './http/connections.js';
import { type MetricsServer, startMetricsServer } from './metrics/serve.js';
import type { StartCheck } from './secret-rotation.js';
import { createServices, type Services } from './services.js';
import { startupFacts, startupLine } from './startup-line.js';
import { openStore } from './store/database.js';
import { startSweeper } from './sweeper.js';
import { VERSION } from './version.js';

export interface ServeOptions {
  /** Logs to stderr, leaving stdout for one JSON line once listening (the CLI's --json). */
  json?: boolean;
}

/**
 * The serving process keeps its heap near what it holds. Its live heap is about 30 MB, but V8 lets the old
 * generation grow to several times the live size between full collections, and a busy server's requests promote
 * enough to take the process past 200 MB of resident memory before each one. Growing by half instead keeps it
 * near 170 MB at no measurable cost in throughput (docs/benchmarks.md). A heuristic read after each collection,
 * so setting it here, before serving, is safe.
 */
const HEAP_GROWING_PERCENT = 50;

export async function serve(config: Config, options: ServeOptions = {}): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const store = await openStore(config.database);
  // Background delivery work reports to the app's log, which exists once the app is built below.
  let log: FastifyBaseLogger | undefined;
  let services: Services;
  let sealed: StartCheck;
  let metricsServer: MetricsServer | undefined;
  try {
    services = createServices({
      store,
      secret: config.secret,
      previousSecret: config.previousSecret,
      retentionDays: config.retentionDays,
      auditRetentionDays: config.auditRetentionDays,
      publicUrl: config.publicUrl,
      webhooks: { production: config.production, ...config.webhooks },
      delivery: {
        ...config.delivery,
        log: {
          info: (message) => log?.info(`delivery: ${message}`),
          warn: (message, err) => log?.warn({ err }, `delivery: ${message}`),
        },
      },
    });
    // A secret that no longer opens the carrier accounts stops the start here, saying what to do.
    sealed = await services.secretRotation.checkAtStart();
    if (sealed.refusal) throw new Error(sealed.refusal);
    // Before the app and any background work: a port already taken stops the start here.
    if (config.metrics.port !== undefined) {
      metricsServer = await startMetricsServer(
        services.metrics.registry,
        config.metrics.host,
        config.metrics.port,
      ).catch((err: Error) => {
        throw new Error(
          `the metrics listener could not start on ${config.metrics.host}:${config.metrics.port}: ${err.message}`,
        );
      });
    }
  } catch (err) {
    await store.close();
    throw err;
  }
  store.serveInBackground();
  // Served metrics only: what a scrape reads (process metrics, the delivery queue, the pool), and every statement
  // and request timed from here on. A process whose metrics nobody reads spends nothing on them.
  const metricsServed = config.metrics.port !== undefined || config.metrics.token !== undefined;
  if (metricsServed) {
    services.metrics.collect({ queue: () => services.dispatcher.queue(), pool: store.poolStats });
    store.observeQueries((seconds) => services.metrics.query(seconds));
  }
  const connections = connectionLimit(config.maxConnections, config.database.poolMax ?? 0);
  const app = await buildApp({
    services,
    production: config.production,
    requestTimeoutMs: config.requestTimeoutMs,
    maxConnections: connections.maxConnections,
    metrics: metricsServed ? { token: config.metrics.token } : undefined,
    logger: {
      level: config.logLevel,
      redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
      stream: options.json ? process.stderr : process.stdout,
    },
  });
  log = app.log;
  const facts = await startupFacts(config, services);
  const idle = config.production ? await services.workspaces.numbersWithoutCarrier() : [];
  const stopSweeper = startSweeper(services, config.sweepIntervalMs, app.log);
  // Also picks up, once their leases run out, the jobs of a process that died between commit and hand-over.
  const stopDispatcher = services.dispatcher.startPolling(config.delivery.pollMs);
  // Webhook messages: committed with their state changes, sent (and retried) by whichever process claims them.
  const stopWebhooks = services.webhookDelivery.startPolling(config.delivery.pollMs);

  const closeAll = async () => {
    await app.close();
    await metricsServer?.close();
    await stopDispatcher();
    await stopWebhooks();
    // After the last hand-over, before the store: receipts still arriving are applied until the unbind.
    await services.carrierRuntime.close();
    await stopSweeper();
    await store.close();
  };
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await closeAll();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  // The first line logged is the start-up line: Fastify's "listening" line, in our words (startup-line.ts).
  let address: string;
  try {
    address = await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (at) => startupLine(VERSION, at, config, facts),
    });
  } catch (err) {
    // The port is taken, say: stop what started, so the process exits with the reason instead of running on
    // with no listener.
    closing = true;
    await closeAll();
    throw err;
  }
  if (metricsServer) app.log.info({ metrics_url: metricsServer.url }, 'metrics served for Prometheus');
  for (const warning of [...services.startupWarnings, ...sealed.warnings]) app.log.warn(warning);
  app.log.info(
    {
      max_connections: connections.maxConnections,
      descriptor_limit: connections.descriptorLimit,
      request_timeout_ms: config.requestTimeoutMs,
    },
    'connection limits',
  );
  if (connections.beyondDescriptors) {
    app.log.warn(
      `MAX_CONNECTIONS=${connections.maxConnections}, but this process may open only ${connections.descriptorLimit} files: connections and requests to the database or carriers may fail with "too many open files" before that many are open. Lower MAX_CONNECTIONS or raise the limit (ulimit -n, systemd's LimitNOFILE).`,
    );
  }
  if (store.dialect === 'postgres' && !config.secret) {
    app.log.warn(
      `PHONE_VERIFY_SECRET is not set: this process uses the secret in ${store.dataDir}. Every process sharing the database must use the same secret, or codes sent through one fail in another: set PHONE_VERIFY_SECRET.`,
    );
  }
  if (idle.length > 0) {
    app.log.error(
      { numbers: idle.map((n) => n.number) },
      `NODE_ENV=production, but ${idle.length} workspace number(s) have no carrier account: codes sent from them go to the development outbox and reach NO phone. Tie each to a carrier: phone-verify number add --workspace WS_ID --number PHONE --carrier CARRIER_ID (docs/carriers.md).`,
    );
  }
  if (options.json) {
    const started = { url: address, database: store.dialect, public_url: config.publicUrl };
    process.stdout.write(`${JSON.stringify({ ...started, metrics_url: metricsServer?.url })}\n`);
  }
}
