// The log's SQL: a page of one workspace's verifications, newest first, and the two ways a partial number is
// looked for without reading the whole workspace (docs/dashboard.md, "Phone search"):
// - few matches (the usual case: a few digits more than a country code): every match is read through index
//   ranges (prefixes on the (workspace_id, phone) index, last digits through the phone directory), then sorted;
// - many matches (a short prefix, one or two last digits): the newest verifications are read in order and the
//   matching ones kept; they are frequent, so a page fills quickly. A page looks at NEWEST_LOOKED_AT rows at
//   most: if they hold fewer than a page of matches, it shows those and leads on to the older ones.
// The choice comes from counting the matches, no further than MATCHES_READ_IN_FULL, along the same index ranges.
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/tables.js';
import { endsWithIndexed, endsWithRecent, numbersEndingWith } from './phone-directory.js';
import { type PhoneQuery, upperBoundOf } from './phone-query.js';

export const PAGE_SIZE = 50;
/** Matches read in full and sorted (about 1 µs each): a few milliseconds. */
const MATCHES_READ_IN_FULL = 5000;
/** Newest verifications a page of a broad search looks at (about 1 µs each). */
const NEWEST_LOOKED_AT = 10_000;

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
] as const;

export function effectiveStatus(now: number) {
  return sql<string>`CASE WHEN status = 'pending' AND expires_at <= ${now} THEN 'expired' ELSE status END`;
}

type Where = (eb: ExpressionBuilder<Database, 'verifications'>) => Expression<SqlBool>;

/** The workspace's rows under every filter of the scope. */
export function onlyIn(scope: Scope): Where {
  return (eb) => eb.and([eb('workspace_id', '=', scope.workspaceId), ...scope.window, ...scope.rows]);
}

// The rows of `verifications`, or of a subset of them with its columns (a CTE, a subquery): a page reads the
// same columns from any of them.
// biome-ignore lint/suspicious/noExplicitAny: see above.
type Rows = SelectQueryBuilder<any, any, object>;

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
  const page = found.slice(0, PAGE_SIZE).map((r) => ({ ...r, created_at: Number(r.created_at) }));
  const last = page[page.length - 1];
  if (found.length > PAGE_SIZE && last) {
    return { rows: page, older: `${last.created_at}~${last.id}`, incomplete: false };
  }
  const older = stoppedAt ? await stoppedAt() : null;
  return { rows: page, older, incomplete: older !== null };
}

function startsWith(workspaceId: string, prefix: string): Where {
  return (eb) =>
    eb.and([
      eb('workspace_id', '=', workspaceId),
      eb('phone', '>=', prefix),
      eb('phone', '<=', upperBoundOf(prefix)),
    ]);
}

/**
 * In one statement: the rows each prefix matches, the directory's numbers that end with the suffix and the sends
 * they stand for, none counted beyond `cap` (along the index each condition names); and the directory's watermark.
 */
async function countMatches(
  db: Db,
  workspaceId: string,
  starts: Where[],
  suffix: string | undefined,
  cap: number,
) {
  const rowsOf = (where: Where) =>
    db.selectFrom('verifications').select(sql.lit(1).as('one')).where(where).limit(cap).as('m');
  const numbers = suffix
    ? numbersEndingWith(db, workspaceId, suffix).select('sends').limit(cap).as('n')
    : undefined;
  const row = (await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('watermarks')
        .select('done_before')
        .where('name', '=', 'phone_directory')
        .as('recent_from'),
      ...starts.map((where, i) =>
        eb
          .selectFrom(rowsOf(where))
          .select((e) => e.fn.countAll().as('n'))
          .as(`starts_${i}`),
      ),
      ...(numbers
        ? [
            eb
              .selectFrom(numbers)
              .select((e) => e.fn.countAll().as('n'))
              .as('numbers'),
            eb
              .selectFrom(numbers)
              .select((e) => e.fn.sum('sends').as('n'))
              .as('sends'),
          ]
        : []),
    ])
    .executeTakeFirstOrThrow()) as Record<string, unknown>;
  const rows = starts.reduce((sum, _, i) => sum + Number(row[`starts_${i}`]), Number(row.sends ?? 0));
  return { rows, numbers: Number(row.numbers ?? 0), recentFrom: Number(row.recent_from ?? 0) };
}

export async function searchPartial(
  db: Db,
  scope: Scope,
  phone: Extract<PhoneQuery, { kind: 'partial' }>,
  now: number,
): Promise<LogPage> {
  const { workspaceId } = scope;
  const cap = MATCHES_READ_IN_FULL + 1;
  const starts = phone.prefixes.map((prefix) => startsWith(workspaceId, prefix));
  const counted = await countMatches(db, workspaceId, starts, phone.suffix, cap);
  // Not counted: the rows above the directory's watermark (a value, so the planner sees how few they are).
  const ends = phone.suffix
    ? [
        endsWithIndexed(workspaceId, phone.suffix, cap),
        endsWithRecent(workspaceId, phone.suffix, counted.recentFrom),
      ]
    : [];
  const ways = [...starts, ...ends];
  const conditions = [...scope.window, ...scope.rows];

  if (counted.numbers < cap && counted.rows <= MATCHES_READ_IN_FULL) {
    // Each way alone in the CTE, so each is read through its own index, whatever the filters and the order.
    const union = ways
      .map((where) => db.selectFrom('verifications').select(COLUMNS).where(where))
      .reduce((a, b) => a.union(b));
    let rows = db
      .with(
        (cte) => cte('matches').materialized(),
        () => union,
      )
      .selectFrom('matches');
    if (conditions.length > 0) rows = rows.where((eb) => eb.and(conditions));
    return pageOf(rows, now);
  }

  const inWindow: Where = (eb) => eb.and([eb('workspace_id', '=', workspaceId), ...scope.window]);
  const newest = db
    .selectFrom('verifications')
    .select(COLUMNS)
    .where(inWindow)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(NEWEST_LOOKED_AT);
  const rows = db
    .selectFrom(newest.as('newest'))
    .where((eb) =>
      eb.and([
        eb.or([
          ...phone.prefixes.map((prefix) =>
            eb.and([eb('phone', '>=', prefix), eb('phone', '<=', upperBoundOf(prefix))]),
          ),
          ...(phone.suffix ? [eb('phone', 'like', `%${phone.suffix}`)] : []),
        ]),
        ...scope.rows,
      ]),
    );
  return pageOf(rows, now, async () => {
    const last = await db
      .selectFrom('verifications')
      .select(['created_at', 'id'])
      .where(inWindow)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(NEWEST_LOOKED_AT - 1)
      .limit(1)
      .executeTakeFirst();
    return last ? `${last.created_at}~${last.id}` : null;
  });
}
