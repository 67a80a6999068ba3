// How the log finds a partial number without reading the whole workspace (docs/dashboard.md, "Phone search"):
// - few matches (the usual case: a few digits more than a country code): every match is read through index
//   ranges (prefixes on the (workspace_id, phone) index, last digits through the phone directory), then sorted;
// - many matches (a short prefix, one or two last digits): the newest verifications are read in order and the
//   matching ones kept; they are frequent, so a page fills quickly. A page looks at `newestLookedAt` rows at
//   most: if they hold fewer than a page of matches, it shows those and leads on to the older ones.
// The choice comes from counting the matches, no further than `matchesReadInFull`, along the same index ranges.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/prepared.js';
import { COLUMNS, type LogPage, PAGE_SIZE, pageOf, type Rows, type Scope, type Where } from './log-page.js';
import { endsWithIndexed, endsWithRecent, numbersEndingWith } from './phone-directory.js';
import { type PhoneQuery, upperBoundOf } from './phone-query.js';

/** SQLite's row key, held by every index of a table with one. */
const ROWID = sql<number>`rowid`;

export interface SearchLimits {
  /** Matches read in full and sorted (a few µs each, a random read): a few milliseconds at most. */
  matchesReadInFull: number;
  /** Newest verifications a page of a broad search looks at (about 1 µs each, read in order). */
  newestLookedAt: number;
}

export const SEARCH_LIMITS: SearchLimits = { matchesReadInFull: 5000, newestLookedAt: 10_000 };

/** The workspace's verifications to a number that starts with `prefix`: a range of the (workspace_id, phone) index. */
export function startsWith(workspaceId: string, prefix: string): Where {
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

/**
 * Every row one of `ways` finds, under `conditions` (few: the caller counted them). Each way is read alone, through
 * its own index, whatever the filters and the order. On SQLite each way reads only its index (every index holds the
 * rowid), and `rowid IN (…)` keeps each row once and looks it up once: a union of the rows themselves read each
 * match's row in its way, then sorted whole rows to drop the repeats, about three times the time
 * (docs/benchmarks.md). PostgreSQL reads a row's heap tuple in its way anyway (an index holds no id it could
 * return without it): there the union of each way's newest page of rows is the quicker.
 */
export function matchesInFull(db: Db, ways: Where[], conditions: Expression<SqlBool>[]): Rows {
  if (dialectOf(db) === 'sqlite') {
    const keys = ways
      .map((where) => db.selectFrom('verifications').select(ROWID.as('r')).where(where))
      .reduce((a, b) => a.unionAll(b));
    return db
      .selectFrom('verifications')
      .where(ROWID, 'in', keys)
      .where((eb) => eb.and(conditions));
  }
  // Each way keeps only its newest page (and one more, for the cursor) under the page's filters: the newest page of
  // their union is among those. The union then dedupes a few hundred rows at most, where it hashed and sorted every
  // match (1,000 for `0430 123` in the long run: 4.3-4.9 ms of execution against 2.0; docs/benchmarks.md).
  const union = ways
    .map((where, i) =>
      db
        .selectFrom(
          db
            .selectFrom('verifications')
            .select(COLUMNS)
            .where(where)
            .where((eb) => eb.and(conditions))
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(PAGE_SIZE + 1)
            .as(`way_${i}`),
        )
        .selectAll(),
    )
    .reduce((a, b) => a.union(b));
  return db.selectFrom(union.as('matches'));
}

export async function searchPartial(
  db: Db,
  scope: Scope,
  phone: Extract<PhoneQuery, { kind: 'partial' }>,
  now: number,
  limits: SearchLimits = SEARCH_LIMITS,
): Promise<LogPage> {
  const { workspaceId } = scope;
  const cap = limits.matchesReadInFull + 1;
  const starts = phone.prefixes.map((prefix) => startsWith(workspaceId, prefix));
  const counted = await countMatches(db, workspaceId, starts, phone.suffix, cap);
  // Not counted: the rows above the directory's watermark (a value, so the planner sees how few they are).
  // The directory may have grown since the count (a sweeper indexing): room for that, never a cut list.
  const ends = phone.suffix
    ? [
        endsWithIndexed(workspaceId, phone.suffix, 2 * cap),
        endsWithRecent(workspaceId, phone.suffix, counted.recentFrom),
      ]
    : [];
  const ways = [...starts, ...ends];
  const conditions = [...scope.window, ...scope.rows];

  if (counted.numbers < cap && counted.rows <= limits.matchesReadInFull) {
    return pageOf(matchesInFull(db, ways, conditions), now);
  }

  const inWindow: Where = (eb) => eb.and([eb('workspace_id', '=', workspaceId), ...scope.window]);
  const newest = db
    .selectFrom('verifications')
    .select(COLUMNS)
    .where(inWindow)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limits.newestLookedAt);
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
      .offset(limits.newestLookedAt - 1)
      .limit(1)
      .executeTakeFirst();
    return last ? `${last.created_at}~${last.id}` : null;
  });
}
