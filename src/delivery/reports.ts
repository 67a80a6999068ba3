// Where providers report a delivery's failure after hand-over (a carrier's status callback, the development
// provider's simulated failures). Duplicate and late reports are harmless: only a pending code changes status.
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { createTimeline } from '../timeline/timeline.js';
import type { EmitEvent } from '../webhooks/emit.js';
import { carrierText } from './carrier-text.js';
import type { DeliveryReportSink, StatusReport } from './provider.js';
import { findByProviderId, recordDeliveryFailure, statusOf } from './verification-delivery.js';

export function createDeliveryReports(deps: { db: Db; clock: Clock; emit: EmitEvent }): DeliveryReportSink {
  const timeline = createTimeline(deps);
  return {
    async deliveryFailed(report) {
      // The failure and its webhook event commit together: `undelivered` when it ends a pending code, else an
      // update of the delivery (the report changed its error fields).
      const after = await deps.db.transaction().execute(async (tx) => {
        const before = await statusOf(tx, report.verificationId);
        const row = await recordDeliveryFailure(tx, report.verificationId, report, deps.clock.now());
        if (row) {
          const undelivered = before === 'pending' && row.status === 'undelivered';
          await deps.emit(
            tx,
            undelivered ? 'verification.undelivered' : 'verification.delivery_updated',
            row,
          );
        }
        return row;
      });
      if (!after) return false;
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
      return true;
    },
  };
}

/** What became of a carrier's status report (for the log; the carrier is answered 2xx whatever it is). */
export type StatusOutcome = 'applied' | 'no_change' | 'duplicate' | 'unknown_verification';

export interface CarrierStatusReports {
  /**
   * Applies a status report whose signature was checked against a carrier account of `workspaceId`: a failure
   * makes that workspace's pending verification undelivered; nothing else changes anything.
   */
  apply(input: { workspaceId: string; carrier: string; report: StatusReport }): Promise<StatusOutcome>;
}

export function createCarrierStatusReports(deps: {
  db: Db;
  clock: Clock;
  emit: EmitEvent;
}): CarrierStatusReports {
  const sink = createDeliveryReports(deps);
  return {
    async apply({ workspaceId, carrier, report }) {
      // Accepted and delivered say nothing new: the code stays pending until it is checked or expires.
      if (report.state !== 'failed') return 'no_change';
      // Scoped to the account's workspace, so one workspace's carrier cannot touch another's verifications.
      const row = await findByProviderId(deps.db, workspaceId, report.providerId);
      if (!row) return 'unknown_verification';
      // Carriers retry, and some signatures carry no timestamp: the same report again writes nothing new,
      // decided by the update itself, so of two copies racing exactly one is applied.
      const applied = await sink.deliveryFailed({
        verificationId: row.id,
        providerId: report.providerId,
        errorCode: 'delivery_failed',
        errorMessage: carrierFailureMessage(carrier, report),
      });
      return applied ? 'applied' : 'duplicate';
    },
  };
}

/**
 * "<Carrier> 30003: undelivered: Unreachable destination handset", without repeating a code that is the words;
 * the carrier's code and words are made printable and bounded by the same rule as a hand-over's (carrierText).
 */
export function carrierFailureMessage(carrier: string, report: StatusReport): string {
  const code = carrierText(report.carrierCode, 40);
  const words = carrierText(report.carrierMessage);
  const text =
    code && words && code !== words
      ? `${carrier} ${code}: ${words}`
      : `${carrier}: ${code || words || 'delivery failed'}`;
  return carrierText(text);
}
