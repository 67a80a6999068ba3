// Where providers report a delivery's failure after hand-over (a carrier's status callback, the development
// provider's simulated failures). Duplicate and late reports are harmless: only a pending code changes status.
import type { Clock } from '../clock.js';
import type { DeliveryReportSink } from '../delivery/provider.js';
import type { Db } from '../store/database.js';
import { recordDeliveryFailure } from './repository.js';

export function createDeliveryReports(deps: { db: Db; clock: Clock }): DeliveryReportSink {
  return {
    async deliveryFailed(report) {
      await recordDeliveryFailure(deps.db, report.verificationId, report, deps.clock.now());
    },
  };
}
