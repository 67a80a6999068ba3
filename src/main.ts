// The serving process: config, store, app, listen, sweeper, graceful close on SIGTERM/SIGINT. Nothing else.
import { setFlagsFromString } from 'node:v8';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, LOG_REDACT_PATHS } from './app.js';
import type { Config } from './config.js';
import { createServices } from './services.js';
import { openStore } from './store/database.js';
import { startSweeper } from './sweeper.js';

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
  store.serveInBackground();
  // Background delivery work reports to the app's log, which exists once the app is built below.
  let log: FastifyBaseLogger | undefined;
  const services = createServices({
    store,
    secret: config.secret,
    retentionDays: config.retentionDays,
    auditRetentionDays: config.auditRetentionDays,
    publicUrl: config.publicUrl,
    delivery: {
      ...config.delivery,
      log: {
        info: (message) => log?.info(`delivery: ${message}`),
        warn: (message, err) => log?.warn({ err }, `delivery: ${message}`),
      },
    },
  });
  const app = await buildApp({
    services,
    production: config.production,
    logger: {
      level: config.logLevel,
      redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
      stream: options.json ? process.stderr : process.stdout,
    },
  });
  log = app.log;
  if (store.dialect === 'postgres' && !config.secret) {
    app.log.warn(
      `PHONE_VERIFY_SECRET is not set: this process uses the secret in ${store.dataDir}. Every process sharing the database must use the same secret, or codes sent through one fail in another: set PHONE_VERIFY_SECRET.`,
    );
  }
  if (config.production) {
    const idle = await services.workspaces.numbersWithoutCarrier();
    if (idle.length > 0) {
      app.log.error(
        { numbers: idle.map((n) => n.number) },
        `NODE_ENV=production, but ${idle.length} workspace number(s) have no carrier account: codes sent from them go to the development outbox and reach NO phone. Tie each to a carrier: phone-verify number add --workspace WS_ID --number PHONE --carrier CARRIER_ID (docs/carriers.md).`,
      );
    }
  }
  const stopSweeper = startSweeper(services, config.sweepIntervalMs, app.log);
  // Also picks up, once their leases run out, the jobs of a process that died between commit and hand-over.
  const stopDispatcher = services.dispatcher.startPolling(config.delivery.pollMs);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await stopDispatcher();
    // After the last hand-over, before the store: receipts still arriving are applied until the unbind.
    await services.carrierRuntime.close();
    await stopSweeper();
    await store.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ url: address, database: store.dialect, public_url: config.publicUrl })}\n`,
    );
  }
}
