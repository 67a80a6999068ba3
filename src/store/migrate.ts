// Migrations are applied at every start. Kysely's migrator takes a lock (an advisory lock in PostgreSQL), so
// several processes starting at once apply each migration exactly once.
import {
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import * as initial from './migrations/0001-initial.js';
import * as accounts from './migrations/0002-accounts-and-timeline.js';
import * as carriers from './migrations/0003-carriers.js';
import * as deliveryJobs from './migrations/0004-delivery-jobs.js';
import * as rollups from './migrations/0005-rollups-and-phone-directory.js';
import * as unusedEventIndex from './migrations/0006-unused-event-index.js';
import * as guessCeiling from './migrations/0007-guess-ceiling.js';
import * as idempotencyKeys from './migrations/0008-idempotency-keys.js';
import * as auditLog from './migrations/0009-audit-log.js';
import * as pumpingGuard from './migrations/0010-pumping-guard.js';
import * as conversionSignal from './migrations/0011-conversion-signal.js';
import * as refusedSendsAndCountries from './migrations/0012-refused-sends-and-country-signal.js';
import * as webhooks from './migrations/0013-webhooks.js';
import * as rollupStatuses from './migrations/0014-rollup-statuses.js';
import * as twilioSidIndex from './migrations/0015-twilio-sid-index.js';
import * as testMode from './migrations/0016-test-mode.js';
import * as verificationCounts from './migrations/0017-verification-counts.js';
import * as recentPhoneCovering from './migrations/0018-recent-phone-covering.js';
import * as sweepIndexes from './migrations/0019-sweep-indexes.js';
import * as keyedTimelines from './migrations/0020-keyed-timelines.js';
import * as sqliteSidsByKey from './migrations/0021-sqlite-sids-by-key.js';
import * as sqliteRangeNumbersByKey from './migrations/0022-sqlite-range-numbers-by-key.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-accounts-and-timeline': accounts,
  '0003-carriers': carriers,
  '0004-delivery-jobs': deliveryJobs,
  '0005-rollups-and-phone-directory': rollups,
  '0006-unused-event-index': unusedEventIndex,
  '0007-guess-ceiling': guessCeiling,
  '0008-idempotency-keys': idempotencyKeys,
  '0009-audit-log': auditLog,
  '0010-pumping-guard': pumpingGuard,
  '0011-conversion-signal': conversionSignal,
  '0012-refused-sends-and-country-signal': refusedSendsAndCountries,
  '0013-webhooks': webhooks,
  '0014-rollup-statuses': rollupStatuses,
  '0015-twilio-sid-index': twilioSidIndex,
  '0016-test-mode': testMode,
  '0017-verification-counts': verificationCounts,
  '0018-recent-phone-covering': recentPhoneCovering,
  '0019-sweep-indexes': sweepIndexes,
  '0020-keyed-timelines': keyedTimelines,
  '0021-sqlite-sids-by-key': sqliteSidsByKey,
  '0022-sqlite-range-numbers-by-key': sqliteRangeNumbersByKey,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Kysely's migrator over this build's migrations (tests step a database through them with its `migrateTo`). */
export function migratorFor<T>(db: Kysely<T>): Migrator {
  return new Migrator({ db, provider });
}

export async function migrateToLatest<T>(db: Kysely<T>): Promise<void> {
  const { error, results } = await migratorFor(db).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Names of the migrations this build knows that the database has not applied. A readiness probe asks this on
 * every poll, under the serving statement timeout: one read of the migrator's table (a few dozen rows), not
 * Kysely's `getMigrations`, whose catalog introspection of every table can outlast a short timeout on a loaded
 * database.
 */
export async function pendingMigrations<T>(db: Kysely<T>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
  const applied = new Set(rows.map((r) => r.name));
  return Object.keys(MIGRATIONS).filter((name) => !applied.has(name));
}
