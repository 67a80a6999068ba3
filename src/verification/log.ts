// The dashboard's verifications log: a workspace's verifications newest first, filtered by phone, status,
// channel and creation date (UTC days), in pages of PAGE_SIZE with a cursor to the older ones. How a typed number
// is matched: phone-query.ts; how it is found without reading the workspace: log-search.ts.

import { type SqlBool, sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { CHANNELS, type Channel } from '../vocabulary/channels.js';
import { type Mode, modeOfQuery } from '../vocabulary/modes.js';
import { STATUSES, type Status } from '../vocabulary/statuses.js';
import { splitNumber } from '../workspaces/phone-number.js';
import { listNumbers } from '../workspaces/repository.js';
import { effectiveStatus, type LogPage, mergePages, onlyIn, pageOf, type Scope } from './log-page.js';
import { SEARCH_LIMITS, type SearchLimits, searchPartial } from './log-search.js';
import { type PhoneQuery, phoneQuery } from './phone-query.js';
import { listRefused } from './refused-sends.js';

export { type LogPage, type LogRow, PAGE_SIZE } from './log-page.js';

const DAY_MS = 86_400_000;

export interface LogFilter {
  /** As typed: a whole number (E.164 or national), or the digits it starts or ends with (phone-query.ts). */
  phone: string;
  /** A verification's status, or 'refused': the sends refused before any verification (refused-sends.ts). */
  status: Status | typeof REFUSED | '';
  channel: Channel | '';
  /** YYYY-MM-DD (UTC), inclusive; '' for no bound. */
  from: string;
  to: string;
  /** Where the page starts: the cursor of the last row of the newer page; '' for the newest. */
  before: string;
  /** Live data unless the page's "Test data" toggle asks for test data (`mode=test`). */
  mode: Mode;
}

/** The log's status of a refused send. */
export const REFUSED = 'refused';
/** The status filter's values: every status of a verification, and refused sends. */
export const LOG_STATUSES = [...STATUSES, REFUSED] as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A row's place: its created_at and id (a verification's or a refused send's). */
const CURSOR = /^(\d{1,15})~((?:ver|ref)_[0-9A-Za-z]{1,40})$/;

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
    status: (LOG_STATUSES as readonly string[]).includes(status) ? (status as LogFilter['status']) : '',
    channel: CHANNELS.includes(channel as Channel) ? (channel as Channel) : '',
    from: date('from'),
    to: date('to'),
    before: CURSOR.test(text('before')) ? text('before') : '',
    mode: modeOfQuery(query),
  };
}

/** The filter's status, channel, dates and cursor as conditions (the phone is the PhoneQuery's). */
function scopeOf(workspaceId: string, filter: LogFilter, now: number): Scope {
  const window = [];
  const from = dayStart(filter.from);
  if (from !== undefined) window.push(sql<SqlBool>`created_at >= ${from}`);
  const to = dayStart(filter.to);
  if (to !== undefined) window.push(sql<SqlBool>`created_at < ${to + DAY_MS}`);
  const cursor = CURSOR.exec(filter.before);
  if (cursor) {
    const at = Number(cursor[1]);
    window.push(sql<SqlBool>`(created_at < ${at} OR (created_at = ${at} AND id < ${cursor[2]}))`);
  }
  // Test and live verifications are never listed together.
  const rows = [sql<SqlBool>`mode = ${filter.mode}`];
  if (filter.status && filter.status !== REFUSED) {
    rows.push(sql<SqlBool>`${effectiveStatus(now)} = ${filter.status}`);
  }
  if (filter.channel) rows.push(sql<SqlBool>`channel = ${filter.channel}`);
  return { workspaceId, window, rows };
}

/**
 * One page of the log: the verifications and the refused sends under the same filters, merged newest first (the
 * status filter picks one of them: 'refused' the refused sends, any other status the verifications).
 */
export async function listLog(
  db: Db,
  workspaceId: string,
  filter: LogFilter,
  now: number,
  phone: PhoneQuery,
  limits: SearchLimits = SEARCH_LIMITS,
): Promise<LogPage> {
  const scope = scopeOf(workspaceId, filter, now);
  const [verified, refused] = await Promise.all([
    filter.status === REFUSED ? undefined : listVerifications(db, scope, now, phone, limits),
    // Refused sends are live only: test sends record none (verification/service.ts).
    filter.mode === 'live' && (filter.status === '' || filter.status === REFUSED)
      ? listRefused(db, scope, filter.channel, phone, limits)
      : undefined,
  ]);
  if (verified && refused) return mergePages(verified, refused);
  return verified ?? refused ?? { rows: [], older: null, incomplete: false };
}

function listVerifications(
  db: Db,
  scope: Scope,
  now: number,
  phone: PhoneQuery,
  limits: SearchLimits,
): Promise<LogPage> {
  switch (phone.kind) {
    case 'any':
      return pageOf(db.selectFrom('verifications').where(onlyIn(scope)), now);
    case 'whole':
      // The (workspace_id, phone, created_at) index: this number's rows, already newest first.
      return pageOf(
        db.selectFrom('verifications').where(onlyIn(scope)).where('phone', '=', phone.phone),
        now,
      );
    case 'partial':
      return searchPartial(db, scope, phone, now, limits);
  }
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

/**
 * The log as a service: one workspace's page, as of the clock's now (a pending code past its time is expired).
 * A national number typed into the search is read in the workspace's default country (its first number's).
 */
export function createVerificationLog(deps: {
  db: Db;
  clock: Clock;
  /** How much a partial number's search reads (log-search.ts); tests make them small. */
  searchLimits?: SearchLimits;
}) {
  return {
    async list(workspaceId: string, filter: LogFilter): Promise<LogPage> {
      const now = deps.clock.now();
      const defaultCountry = filter.phone ? (await listNumbers(deps.db, workspaceId))[0]?.country : undefined;
      const phone = phoneQuery(filter.phone, defaultCountry);
      return listLog(deps.db, workspaceId, filter, now, phone, deps.searchLimits);
    },
  };
}

export type VerificationLog = ReturnType<typeof createVerificationLog>;
