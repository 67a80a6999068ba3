// A send's first hand-over when the provider is a write to this database (the development outbox, the test
// outbox): made in the send's own transaction, so the code, its verification and its message commit together or
// not at all. No delivery job is written (nothing is left to retry: a failed write fails the whole send), and
// the verification is inserted already settled, so the send commits once and answers at once.
import type { Db } from '../store/database.js';
import type { VerificationsTable } from '../store/tables.js';
import type { NewEvent } from '../timeline/timeline.js';
import type { WebhookEventType } from '../vocabulary/webhook-events.js';
import { carrierText } from './carrier-text.js';
import { outboundMessage } from './outbound-message.js';
import type { LocalProvider } from './provider.js';

/** The delivery columns a settled hand-over sets on a new verification. */
export type HandOverColumns = Pick<
  VerificationsTable,
  | 'status'
  | 'delivery_ok'
  | 'delivery_provider'
  | 'provider_id'
  | 'from_number'
  | 'error_code'
  | 'error_message'
>;

export interface InlineHandOver {
  result: 'handed_over' | 'rejected';
  provider: string;
  /** The row's delivery columns as the hand-over left them, written with the row itself. */
  columns: HandOverColumns;
  /** Its timeline event, recorded with the send's own. */
  event: NewEvent;
  /** Its webhook event, for a workspace with endpoints. */
  webhook: WebhookEventType;
}

/**
 * Hands the pending verification `row` over to a local provider through `tx`, the send's transaction. A provider
 * error is not caught: it rolls the send back whole (the caller answers 5xx, and nothing of it is kept).
 */
export async function handOverIn(
  tx: Db,
  provider: LocalProvider,
  row: VerificationsTable,
  code: string,
): Promise<InlineHandOver> {
  const about = { verificationId: row.id, workspaceId: row.workspace_id };
  const result = await provider.sendIn(tx, outboundMessage(row, row.from_number, code));
  const delivery = { delivery_provider: provider.name, from_number: row.from_number };
  if (result.ok) {
    return {
      result: 'handed_over',
      provider: provider.name,
      columns: {
        ...delivery,
        status: row.status,
        delivery_ok: 1,
        provider_id: result.providerId,
        error_code: null,
        error_message: null,
      },
      event: {
        ...about,
        kind: 'handed_over',
        detail: { provider: provider.name, provider_id: result.providerId, hand_over_attempt: 1 },
      },
      webhook: 'verification.delivery_updated',
    };
  }
  // A definitive rejection: the code reaches nobody, so the verification is undelivered from the start.
  const errorMessage = carrierText(result.errorMessage);
  return {
    result: 'rejected',
    provider: provider.name,
    columns: {
      ...delivery,
      status: 'undelivered',
      delivery_ok: 0,
      provider_id: result.providerId,
      error_code: result.errorCode,
      error_message: errorMessage,
    },
    event: {
      ...about,
      kind: 'rejected',
      detail: { provider: provider.name, error_code: result.errorCode, error_message: errorMessage },
    },
    webhook: 'verification.undelivered',
  };
}
