// The dashboard's verifications log: a workspace's verifications newest first, filtered by phone, status,
// channel and creation date (UTC days), in pages of PAGE_SIZE with a cursor to the older ones.

import { type ExpressionBuilder, sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import type { Database } from '../store/tables.js';
import { CHANNELS, type Channel } from '../vocabulary/channels.js';
import { STATUSES, type Status } from '../vocabulary/statuses.js';
import { splitNumber } from '../workspaces/phone-number.js';

export const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;

export interface LogFilter {
  /** As typed: E.164, national digits, or any part of the digits. */
  phone: string;
  status: Status | '';
  channel: Channel | '';
  /** YYYY-MM-DD (UTC), inclusive; '' for no bound. */
  from: string;
  to: string;
  /** Where the page starts: the cursor of the last row of the newer page; '' for the newest. */
  before: string;
}

export interface LogRow {
  id: string;
  phone: string;
  channel: string;
  /** Pending rows whose time has run out show as expired, as every read of them would store them. */
  status: string;
  created_at: number;
  attempts: number;
  max_attempts: number;
  delivery_ok: number | null;
  error_code: string | null;
}

export interface LogPage {
  rows: LogRow[];
  /** The cursor of the next (older) page; null on the last. */
  older: string | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^(\d+)~(ver_[0-9A-Za-z]+)$/;

function dayStart(date: string): number | undefined {
  if (!DATE.test(date)) return undefined;
  const ms = Date.parse(`${date}T00:00:00.000Z`);
  // Date.parse rolls 2026-02-30 over to March: only a day that exists round-trips.
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(date) ? ms : undefined;
}

/** The filter of a query string; values that mean nothing are dropped, so the form shows what was applied. */
export function parseLogFilter(query: Record<string, unknown> | undefined): LogFilter {
  const text = (name: string) => {
    const value = query?.[name];
    return typeof value === 'string' ? value.trim() : '';
  };
  const status = text('status');
  const channel = text('channel');
  const date = (name: string) => (dayStart(text(name)) === undefined ? '' : text(name));
  return {
    phone: text('phone').slice(0, 32),
    status: STATUSES.includes(status as Status) ? (status as Status) : '',
    channel: CHANNELS.includes(channel as Channel) ? (channel as Channel) : '',
    from: date('from'),
    to: date('to'),
    before: CURSOR.test(text('before')) ? text('before') : '',
  };
}

/**
 * The LIKE pattern for a typed number: "+61 4…" matches from the start of the E.164 form; digits without "+"
 * match anywhere, without a national trunk prefix ("0412 345 001" finds +61412345001).
 */
export function phonePattern(input: string): string | undefined {
  const digits = input.replace(/\D/g, '');
  if (digits === '') return undefined;
  if (input.trim().startsWith('+')) return `+${digits}%`;
  return `%${digits.replace(/^0+(?=\d)/, '')}%`;
}

function effectiveStatus(now: number) {
  return sql<string>`CASE WHEN status = 'pending' AND expires_at <= ${now} THEN 'expired' ELSE status END`;
}

export async function listLog(db: Db, workspaceId: string, filter: LogFilter, now: number): Promise<LogPage> {
  let query = db
    .selectFrom('verifications')
    .select([
      'id',
      'phone',
      'channel',
      effectiveStatus(now).as('status'),
      'created_at',
      'attempts',
      'max_attempts',
      'delivery_ok',
      'error_code',
    ])
    .where('workspace_id', '=', workspaceId);
  const pattern = phonePattern(filter.phone);
  if (pattern) query = query.where('phone', 'like', pattern);
  if (filter.status) query = query.where(effectiveStatus(now), '=', filter.status);
  if (filter.channel) query = query.where('channel', '=', filter.channel);
  const from = dayStart(filter.from);
  if (from !== undefined) query = query.where('created_at', '>=', from);
  const to = dayStart(filter.to);
  if (to !== undefined) query = query.where('created_at', '<', to + DAY_MS);
  const cursor = CURSOR.exec(filter.before);
  if (cursor) {
    const at = Number(cursor[1]);
    const id = cursor[2] as string;
    query = query.where((eb: ExpressionBuilder<Database, 'verifications'>) =>
      eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]),
    );
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE + 1)
    .execute();
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  return { rows: page, older: rows.length > PAGE_SIZE && last ? `${last.created_at}~${last.id}` : null };
}

/**
 * A number as lists show it: the country code, the first national digit and the last three; the rest masked
 * ("+61 4•• ••• 156"). The full number is on the verification's own page.
 */
export function maskPhone(e164: string): string {
  const parsed = splitNumber(e164);
  const code = parsed ? `+${parsed.countryCallingCode}` : '';
  const national = parsed ? String(parsed.nationalNumber) : e164.replace(/\D/g, '');
  const kept = national.length > 4 ? 1 : 0;
  const masked = [...national]
    .map((d, i) => (i < kept || i >= national.length - 3 ? d : '•'))
    .join('')
    .replace(/(?=(.{3})+$)/g, ' ')
    .trim();
  return code ? `${code} ${masked}` : masked;
}

/** The log as a service: one workspace's page, as of the clock's now (a pending code past its time is expired). */
export function createVerificationLog(deps: { db: Db; clock: Clock }) {
  return {
    list: (workspaceId: string, filter: LogFilter): Promise<LogPage> =>
      listLog(deps.db, workspaceId, filter, deps.clock.now()),
  };
}

export type VerificationLog = ReturnType<typeof createVerificationLog>;
