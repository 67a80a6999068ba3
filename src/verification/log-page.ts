// A page of the log: one workspace's verifications, newest first, PAGE_SIZE at a time with a cursor to the older
// ones, read from `verifications` or from a subset of its rows (log-search.ts) under the same filters.
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../store/tables.js';

export const PAGE_SIZE = 50;

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
  /** A refused send (status 'refused', refused-sends.ts): the rule that refused it; null for a verification. */
  reason: string | null;
  /** A refused send's block (the Fraud page's); null otherwise. */
  block_id: string | null;
}

export interface LogPage {
  rows: LogRow[];
  /** The cursor of the next (older) page; null on the last. */
  older: string | null;
  /**
   * A broad partial number was looked for among the newest verifications only: older ones may match too, on
   * the pages `older` leads to, although this page has fewer than PAGE_SIZE rows.
   */
  incomplete: boolean;
}

/** The filters of a page, as conditions on the columns of `verifications` (or a subset of its rows). */
export interface Scope {
  workspaceId: string;
  /** Bounds on created_at (the date filters and the cursor): they bound the newest-first walk too. */
  window: Expression<SqlBool>[];
  /** The status and channel filters. */
  rows: Expression<SqlBool>[];
}

export const COLUMNS = [
  'id',
  'phone',
  'channel',
  'status',
  'created_at',
  'attempts',
  'max_attempts',
  'delivery_ok',
  'error_code',
  'expires_at',
  // The mode condition of the scope applies to a subset's rows too.
  'mode',
] as const;

export function effectiveStatus(now: number) {
  return sql<string>`CASE WHEN status = 'pending' AND expires_at <= ${now} THEN 'expired' ELSE status END`;
}

export type Where = (eb: ExpressionBuilder<Database, 'verifications'>) => Expression<SqlBool>;

/** The workspace's rows under every filter of the scope. */
export function onlyIn(scope: Scope): Where {
  return (eb) => eb.and([eb('workspace_id', '=', scope.workspaceId), ...scope.window, ...scope.rows]);
}

// The rows of `verifications`, or of a subset of them with its columns (a CTE, a subquery): a page reads the
// same columns from any of them.
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type Rows = SelectQueryBuilder<any, any, object>;

/**
 * One page of `rows`, newest first, with the cursor of the next. `stoppedAt`, for a walk that looked at some
 * rows only: where it stopped (null: nothing older), asked only when the page did not fill.
 */
export async function pageOf(
  rows: Rows,
  now: number,
  stoppedAt?: () => Promise<string | null>,
): Promise<LogPage> {
  const found = (await rows
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
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE + 1)
    .execute()) as LogRow[];
  const page = found
    .slice(0, PAGE_SIZE)
    .map((r) => ({ ...r, created_at: Number(r.created_at), reason: null, block_id: null }));
  const last = page[page.length - 1];
  if (found.length > PAGE_SIZE && last) {
    return { rows: page, older: `${last.created_at}~${last.id}`, incomplete: false };
  }
  const older = stoppedAt ? await stoppedAt() : null;
  return { rows: page, older, incomplete: older !== null };
}

/** Newest first, as both pages order their rows: created_at, then id (`ver_…` and `ref_…` alike). */
function newerFirst(a: LogRow, b: LogRow): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const cursorOf = (r: LogRow) => `${r.created_at}~${r.id}`;

/** A cursor's place in the order: the larger, the newer. */
function compareCursors(a: string, b: string): number {
  const [at, id] = a.split('~') as [string, string];
  const [bt, bid] = b.split('~') as [string, string];
  return newerFirst({ created_at: Number(bt), id: bid } as LogRow, { created_at: Number(at), id } as LogRow);
}

/**
 * Two pages of the same filters (the verifications', the refused sends') as one, newest first. A page that leads
 * on (`older`) knows its rows only down to that cursor: the merged page keeps the rows at or above the newest such
 * cursor, so no row of either is skipped, and the next page starts below it.
 */
export function mergePages(a: LogPage, b: LogPage): LogPage {
  const frontiers = [a.older, b.older].filter((c): c is string => c !== null);
  const frontier = frontiers.sort(compareCursors).at(-1);
  const rows = [...a.rows, ...b.rows]
    .sort(newerFirst)
    .filter((r) => frontier === undefined || compareCursors(cursorOf(r), frontier) >= 0);
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  if (rows.length > PAGE_SIZE && last) return { rows: page, older: cursorOf(last), incomplete: false };
  const older = frontier ?? null;
  return { rows: page, older, incomplete: older !== null && page.length < PAGE_SIZE };
}
