// Background work of a serving process: every interval it persists expiry, applies the development provider's
// due failure reports, deletes the delivery jobs of codes nobody wants any more, lets go of what carriers
// hold (sessions) for accounts removed through another process, and brings the dashboard's read-models up to
// date (the overview's roll-ups, the log's phone directory), and on a PostgreSQL server without autovacuum analyses
// the tables that changed (store/statistics.ts); about once a minute the pumping guard judges the
// ranges' conversion (a read of the last day's finished codes, too heavy for every sweep); about once an hour it
// prunes old data (retention, the audit trail's after AUDIT_RETENTION_DAYS), expired dashboard sessions, ended
// sign-in windows and what the pumping guard no longer reads. Every step is idempotent and claims its rows (or its
// slice of time), so several processes may sweep the same database.
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services.js';

const PRUNE_EVERY_MS = 3_600_000;
const JUDGE_EVERY_MS = 60_000;

/** What the sweeper works with: services, never the store. */
export type SweeperServices = Pick<
  Services,
  | 'verifications'
  | 'devProvider'
  | 'dispatcher'
  | 'carrierRuntime'
  | 'carriers'
  | 'retention'
  | 'accounts'
  | 'rollups'
  | 'phoneDirectory'
  | 'statistics'
  | 'fraud'
>;

export function startSweeper(
  services: SweeperServices,
  intervalMs: number,
  log: FastifyBaseLogger,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  // Processes started together prune at different moments.
  let nextPrune = Date.now() + Math.floor(Math.random() * Math.min(PRUNE_EVERY_MS, intervalMs * 12));
  let nextJudge = Date.now() + Math.floor(Math.random() * Math.min(JUDGE_EVERY_MS, intervalMs * 12));
  let toldStatistics = false;
  const sweep = async () => {
    try {
      const analysed = await services.statistics.keep();
      if (!toldStatistics && !(await services.statistics.kept())) {
        toldStatistics = true;
        log.warn(
          'PostgreSQL autovacuum is off: phone-verify analyses its own tables as they change (docs/deployment.md)',
        );
      }
      const expired = await services.verifications.expireDue();
      const reports = await services.devProvider.applyDueReports();
      // Codes verified, canceled, superseded or expired while their delivery waited: their jobs go.
      const dropped = await services.dispatcher.dropUnwanted();
      // An account removed through another process: this process lets its session go too.
      const released = await services.carrierRuntime.releaseRemoved((type) =>
        services.carriers.accountIdsOfType(type),
      );
      // After expiry: an hour whose codes just expired can be rolled up in the same sweep.
      const rolledUp = await services.rollups.roll();
      const indexed = await services.phoneDirectory.index();
      if (expired + reports + dropped + released + rolledUp + indexed + analysed.length > 0) {
        log.debug({ expired, reports, dropped, released, rolledUp, indexed, analysed }, 'sweep');
      }
      if (Date.now() >= nextJudge) {
        nextJudge = Date.now() + JUDGE_EVERY_MS;
        // After expiry: codes that just expired count as not verified.
        const blocked = await services.fraud.judgeConversion();
        if (blocked.length > 0)
          log.warn({ blocked }, 'pumping guard: ranges or countries blocked for low conversion');
      }
      if (Date.now() >= nextPrune) {
        nextPrune = Date.now() + PRUNE_EVERY_MS;
        const pruned = await services.retention.prune();
        // Expired dashboard sessions and ended sign-in windows: nothing reads them again.
        const accounts = await services.accounts.pruneExpired();
        // The pumping guard's recent numbers, idle ranges and old blocks.
        const fraud = await services.fraud.prune();
        log.info({ pruned: { ...pruned, ...accounts, fraud } }, 'retention');
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
