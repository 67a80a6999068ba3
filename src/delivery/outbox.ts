// Reading the development outbox: the `outbox` command (every workspace) and the dashboard's inbox (one).
import { toTimestamp } from '../clock.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { Mode } from '../vocabulary/modes.js';
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

export interface OutboxFilter {
  /** A phone number (E.164 or national): the messages to that number. */
  to?: string;
  /** Any part of the digits of the number a message went to (the dashboard's search). */
  toDigits?: string;
  /** One workspace's messages; without it, every workspace's (the operator's `outbox` command). */
  workspaceId?: string;
  /** One mode's messages (the dashboard's inbox); without it, both (the `outbox` command). */
  mode?: Mode;
  limit?: number;
}

/** One page of the inbox: its messages, and the cursor of the next older page when there is one. */
export interface OutboxPage {
  messages: OutboxMessageView[];
  older: number | undefined;
}

async function readOutbox(
  db: Db,
  filter: OutboxFilter & { beforeSeq?: number },
  limit: number,
): Promise<outbox.OutboxRow[]> {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > OUTBOX_MAX_LIMIT) {
    throw new AppError('invalid_request', `--limit must be a whole number from 1 to ${OUTBOX_MAX_LIMIT}.`);
  }
  const to = filter.to === undefined ? undefined : parsePhone(filter.to, undefined).e164;
  return outbox.listMessages(db, {
    to,
    toDigits: filter.toDigits,
    workspaceId: filter.workspaceId,
    mode: filter.mode,
    beforeSeq: filter.beforeSeq,
    limit,
  });
}

export async function listOutbox(db: Db, filter: OutboxFilter): Promise<OutboxMessageView[]> {
  const rows = await readOutbox(db, filter, filter.limit ?? OUTBOX_DEFAULT_LIMIT);
  return rows.map(present);
}

/** A page of `size` messages older than `before` (a cursor from an earlier page; the newest page without it). */
export async function pageOutbox(
  db: Db,
  filter: Omit<OutboxFilter, 'limit'>,
  size: number,
  before: number | undefined,
): Promise<OutboxPage> {
  // One more than shown: whether an older page exists, without counting.
  const rows = await readOutbox(db, { ...filter, beforeSeq: before }, size + 1);
  const shown = rows.slice(0, size);
  return { messages: shown.map(present), older: rows.length > size ? shown.at(-1)?.seq : undefined };
}

function present(r: outbox.OutboxRow): OutboxMessageView {
  return {
    id: r.id,
    verification_id: r.verification_id,
    channel: r.channel,
    to: r.to_number,
    from: r.from_number,
    body: r.body,
    created_at: toTimestamp(r.created_at),
  };
}

/** The outbox as a service, for the dashboard's inbox and the CLI: newest messages first. */
export function createOutbox(deps: { db: Db }) {
  return {
    list: (filter: OutboxFilter): Promise<OutboxMessageView[]> => listOutbox(deps.db, filter),
    page: (filter: Omit<OutboxFilter, 'limit'>, size: number, before: number | undefined) =>
      pageOutbox(deps.db, filter, size, before),
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
