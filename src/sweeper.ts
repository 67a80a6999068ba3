// Background work of a serving process: persists expiry and applies the development provider's due failure
// reports. Every step is idempotent and claims its rows, so several processes may sweep the same database.
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services.js';

export function startSweeper(
  services: Services,
  intervalMs: number,
  log: FastifyBaseLogger,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    try {
      const expired = await services.verifications.expireDue();
      const reports = await services.devProvider.applyDueReports();
      if (expired + reports > 0) log.debug({ expired, reports }, 'sweep');
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
