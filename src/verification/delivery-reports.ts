// Where providers report a delivery's failure after hand-over (a carrier's status callback, the development
// provider's simulated failures). Duplicate and late reports are harmless: only a pending code changes status.
import type { Clock } from '../clock.js';
import type { DeliveryReportSink } from '../delivery/provider.js';
import type { Db } from '../store/database.js';
import { createTimeline } from './events.js';
import { recordDeliveryFailure } from './repository.js';

export function createDeliveryReports(deps: { db: Db; clock: Clock }): DeliveryReportSink {
  const timeline = createTimeline(deps);
  return {
    async deliveryFailed(report) {
      const after = await recordDeliveryFailure(deps.db, report.verificationId, report, deps.clock.now());
      if (!after) return;
      await timeline.recordAfter([
        {
          verificationId: report.verificationId,
          workspaceId: after.workspace_id,
          kind: 'delivery_failed',
          detail: {
            provider_id: report.providerId,
            error_code: report.errorCode,
            error_message: report.errorMessage,
            status: after.status,
          },
        },
      ]);
    },
  };
}
