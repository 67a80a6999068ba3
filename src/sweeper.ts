// Background work of a serving process: persists expiry and applies the development provider's due failure
// reports every interval, and prunes old data (retention) about once an hour. Every step is idempotent and
// claims its rows, so several processes may sweep the same database.
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services.js';

const PRUNE_EVERY_MS = 3_600_000;

export function startSweeper(
  services: Services,
  intervalMs: number,
  log: FastifyBaseLogger,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  // Processes started together prune at different moments.
  let nextPrune = Date.now() + Math.floor(Math.random() * Math.min(PRUNE_EVERY_MS, intervalMs * 12));
  const sweep = async () => {
    try {
      const expired = await services.verifications.expireDue();
      const reports = await services.devProvider.applyDueReports();
      if (expired + reports > 0) log.debug({ expired, reports }, 'sweep');
      if (Date.now() >= nextPrune) {
        nextPrune = Date.now() + PRUNE_EVERY_MS;
        log.info({ pruned: await services.retention.prune() }, 'retention');
      }
    } catch (err) {
      log.warn({ err }, 'sweep failed; will retry');
    }
  };
  const timer = setInterval(() => {
    running = running.then(sweep);
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
