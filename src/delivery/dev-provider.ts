// The development provider: delivers nothing to a phone. It keeps each message in the outbox (the `outbox`
// command shows them) and behaves like a carrier for two kinds of test destination, by last four digits:
//   …0999  the hand-over is rejected at once;
//   …0998  handed over, then the "carrier" reports within two seconds that delivery failed.
import { type Clock, monotonicStamps } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import * as outbox from './outbox-repository.js';
import type { DeliveryReportSink, HandOver, LocalProvider, OutboundMessage } from './provider.js';
import { toSpokenText, toSsml } from './voice-script.js';

export const DEV_PROVIDER_NAME = 'development';
/** The provider of every test-mode verification (delivery_provider, the timeline): the outbox, never a carrier. */
export const TEST_PROVIDER_NAME = 'test';
const REJECT_SUFFIX = '0999';
const FAIL_LATER_SUFFIX = '0998';
export const LATE_FAILURE_DELAY_MS = 1000;

export interface DevProvider extends LocalProvider {
  /** Applies the simulated failure reports that are due; the sweeper calls it too, so none is lost. */
  applyDueReports(): Promise<number>;
}

/**
 * The test outbox: the development provider under its own name, for test-mode codes (docs/api.md, "Test mode").
 * It writes the outbox alone (the …0999 and …0998 destinations behave as they do there), and names itself so
 * the verification and its timeline say truthfully where the code went.
 */
export function testOutboxProvider(dev: LocalProvider): LocalProvider {
  return { name: TEST_PROVIDER_NAME, send: dev.send, sendIn: dev.sendIn };
}

export function createDevProvider(deps: { db: Db; clock: Clock; reports: DeliveryReportSink }): DevProvider {
  const { db, clock, reports } = deps;
  const nextStamp = monotonicStamps(clock);

  async function applyDueReports(): Promise<number> {
    let applied = 0;
    for (const row of await outbox.dueReports(db, clock.now())) {
      if (!(await outbox.claimReport(db, row.id))) continue;
      await reports.deliveryFailed({
        verificationId: row.verification_id,
        providerId: row.id,
        errorCode: 'delivery_failed',
        errorMessage: `Development provider: delivery to ${row.to_number} failed (simulated for numbers ending in ${FAIL_LATER_SUFFIX}).`,
      });
      applied++;
    }
    return applied;
  }

  return {
    name: DEV_PROVIDER_NAME,
    applyDueReports,
    send: (message) => sendIn(db, message),
    // Its outbox is a table of this database: the message commits with the verification.
    sendIn,
  };

  async function sendIn(tx: Db, message: OutboundMessage): Promise<HandOver> {
    if (message.to.endsWith(REJECT_SUFFIX)) {
      return {
        ok: false,
        providerId: null,
        errorCode: 'destination_rejected',
        errorMessage: `Development provider: hand-over to ${message.to} rejected (simulated for numbers ending in ${REJECT_SUFFIX}).`,
      };
    }
    const now = clock.now();
    const failsLater = message.to.endsWith(FAIL_LATER_SUFFIX);
    const id = newId('msg');
    await outbox.insertMessage(tx, {
      id,
      verification_id: message.verificationId,
      workspace_id: message.workspaceId,
      channel: message.channel,
      to_number: message.to,
      from_number: message.from,
      body: message.channel === 'sms' ? message.text : toSpokenText(message.voice),
      markup: message.channel === 'voice' ? toSsml(message.voice) : null,
      created_at: now,
      report_due_at: failsLater ? now + LATE_FAILURE_DELAY_MS : null,
      report_applied: 0,
      seq: nextStamp(),
      mode: message.mode,
    });
    if (failsLater) {
      setTimeout(() => void applyDueReports().catch(() => {}), LATE_FAILURE_DELAY_MS + 50).unref();
    }
    return { ok: true, providerId: id };
  }
}
