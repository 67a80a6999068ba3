// Reading the development outbox: the `outbox` command (every workspace) and the dashboard's inbox (one).
import { toTimestamp } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import { parsePhone } from '../workspaces/phone-number.js';
import * as outbox from './outbox-repository.js';

export interface OutboxMessageView {
  id: string;
  verification_id: string;
  channel: string;
  to: string;
  from: string;
  body: string;
  created_at: string;
}

export const OUTBOX_DEFAULT_LIMIT = 20;
export const OUTBOX_MAX_LIMIT = 1000;

export async function listOutbox(
  db: Db,
  filter: { to?: string; toDigits?: string; workspaceId?: string; limit?: number },
): Promise<OutboxMessageView[]> {
  const limit = filter.limit ?? OUTBOX_DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > OUTBOX_MAX_LIMIT) {
    throw new AppError('invalid_request', `--limit must be a whole number from 1 to ${OUTBOX_MAX_LIMIT}.`);
  }
  const to = filter.to === undefined ? undefined : parsePhone(filter.to, undefined).e164;
  const rows = await outbox.listMessages(db, {
    to,
    toDigits: filter.toDigits,
    workspaceId: filter.workspaceId,
    limit,
  });
  return rows.map((r) => ({
    id: r.id,
    verification_id: r.verification_id,
    channel: r.channel,
    to: r.to_number,
    from: r.from_number,
    body: r.body,
    created_at: toTimestamp(r.created_at),
  }));
}
