// SQL of the pumping guard. The send path's statements are compiled once (prepared) and run in the send's
// transaction; the first takes the range's row lock, so the count and the block decision after it see every send
// to the range that committed before. Functions take the database (or a transaction) first.
import { type ExpressionBuilder, type QueryCreator, sql } from 'kysely';
import { deleteInBatches } from '../store/batches.js';
import type { Db } from '../store/database.js';
import { dialectOf, prepared, preparedInsert } from '../store/prepared.js';
import type { Database, FraudBlocksTable } from '../store/tables.js';
import { FRAUD_DEFAULTS, type FraudLimits } from './rules.js';

export type BlockRow = FraudBlocksTable;

/**
 * What a send reads of its range: the range's block, the block of the number's country (read, not locked: the sends
 * of a country are not serialised), the workspace's settings, and whether an allow-list entry covers the number.
 * Selected from the range's row (its RETURNING on PostgreSQL, a read on SQLite).
 */
function rangeState(eb: ExpressionBuilder<Database, 'fraud_ranges'>, p: RangeKey) {
  const setting = (column: 'range_limit' | 'range_window_seconds' | 'block_seconds') =>
    eb
      .selectFrom('fraud_settings')
      .select(column)
      .where('fraud_settings.workspace_id', '=', p.workspaceId)
      .$asScalar();
  // The country's row, where the conversion signal writes its block (keyed by its two letters).
  const countryBlock = (column: 'blocked_until' | 'block_id' | 'block_reason') =>
    eb
      .selectFrom('fraud_ranges as c')
      .select(`c.${column}`)
      .where('c.workspace_id', '=', p.workspaceId)
      .where('c.range_prefix', '=', p.country)
      .$asScalar();
  return [
    'fraud_ranges.blocked_until',
    'fraud_ranges.block_id',
    'fraud_ranges.block_reason',
    countryBlock('blocked_until').as('country_blocked_until'),
    countryBlock('block_id').as('country_block_id'),
    countryBlock('block_reason').as('country_block_reason'),
    setting('range_limit').as('range_limit'),
    setting('range_window_seconds').as('range_window_seconds'),
    setting('block_seconds').as('block_seconds'),
    // Prefixes are + and digits only (rules.ts), so plain comparison of the number's start is exact.
    sql<number>`CASE WHEN EXISTS (SELECT 1 FROM fraud_allow WHERE fraud_allow.workspace_id = ${p.workspaceId}
      AND fraud_allow.prefix = substr(cast(${p.phone} as text), 1, length(fraud_allow.prefix))) THEN 1 ELSE 0 END`.as(
      'allowed',
    ),
  ] as const;
}

const newRange = (p: RangeKey) => ({
  workspace_id: p.workspaceId,
  range_prefix: p.range,
  touched_at: p.now,
  blocked_until: null,
  block_id: null,
  block_reason: null,
});

/**
 * PostgreSQL: the range's lock and state in one statement. The upsert's row lock is held to the end of the send's
 * transaction, so the sends of one range are serialised even when they hold different number locks.
 */
const touchRange = prepared((db, p: RangeKey) =>
  db
    .insertInto('fraud_ranges')
    .values(newRange(p))
    .onConflict((oc) => oc.columns(['workspace_id', 'range_prefix']).doUpdateSet({ touched_at: p.now }))
    .returning((eb) => rangeState(eb, p)),
);

/**
 * SQLite: its one write lock already serialises the sends, so the range's row needs no write to lock it. Its state
 * is read first; the row is created if that finds none, and its `touched_at` (which only pruning reads, against a
 * window of hours) moved on at most once a minute: most sends run the read alone, where each wrote a row (and its
 * page, at every commit) and then ran a statement that changed nothing.
 */
const TOUCH_EVERY_MS = 60_000;
const touchRangeIfStale = prepared((db, p: RangeKey & { staleBefore: number }) =>
  db
    .insertInto('fraud_ranges')
    .values(newRange(p))
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'range_prefix'])
        .doUpdateSet({ touched_at: p.now })
        .where('fraud_ranges.touched_at', '<', p.staleBefore),
    ),
);
const readRange = prepared((db, p: RangeKey) =>
  db
    .selectFrom('fraud_ranges')
    .where('fraud_ranges.workspace_id', '=', p.workspaceId)
    .where('fraud_ranges.range_prefix', '=', p.range)
    .select((eb) => [...rangeState(eb, p), 'fraud_ranges.touched_at']),
);

type RangeKey = {
  workspaceId: string;
  range: string;
  phone: string;
  /** The number's country: its block, if any, refuses the send too. */
  country: string;
  now: number;
};

export interface RangeState {
  /** The number's country, whose block was read too. */
  country: string;
  blockedUntil: number | null;
  blockId: string | null;
  blockReason: string | null;
  countryBlockedUntil: number | null;
  countryBlockId: string | null;
  countryBlockReason: string | null;
  allowed: boolean;
  rangeLimit: number;
  windowSeconds: number;
  blockSeconds: number;
}

/**
 * Takes the range (PostgreSQL: its row lock, sent ahead, so the next statement goes in the same round trip; SQLite:
 * its row made if missing) and resolves with the read of its state.
 */
export async function lockRange(db: Db, p: RangeKey): Promise<() => Promise<RangeState>> {
  let answer: Promise<{ rows: RangeRow[] }>;
  if (dialectOf(db) === 'postgres') {
    answer = (await touchRange.ahead(db, p)).answer;
  } else {
    const staleBefore = p.now - TOUCH_EVERY_MS;
    let read = await readRange(db, p);
    const found = read.rows[0];
    if (!found || Number(found.touched_at) < staleBefore) {
      await touchRangeIfStale(db, { ...p, staleBefore });
      // A new row's state is read again: the statement that made it returned nothing.
      if (!found) read = await readRange(db, p);
    }
    answer = Promise.resolve(read);
  }
  return async () => {
    const row = (await answer).rows[0];
    if (!row) throw new Error('the range lock returned no row');
    return {
      country: p.country,
      blockedUntil: row.blocked_until,
      blockId: row.block_id,
      blockReason: row.block_reason,
      countryBlockedUntil: row.country_blocked_until === null ? null : Number(row.country_blocked_until),
      countryBlockId: row.country_block_id as string | null,
      countryBlockReason: row.country_block_reason as string | null,
      allowed: Number(row.allowed) === 1,
      rangeLimit: row.range_limit ?? FRAUD_DEFAULTS.range_limit,
      windowSeconds: row.range_window_seconds ?? FRAUD_DEFAULTS.range_window_seconds,
      blockSeconds: row.block_seconds ?? FRAUD_DEFAULTS.block_seconds,
    };
  };
}

type RangeRow = Omit<NonNullable<Awaited<ReturnType<typeof readRange>>['rows'][number]>, 'touched_at'>;

type RangeCount = { workspaceId: string; range: string; phone: string; since: number };

/** Numbers of the range other than `phone` sent to since `since` (an index range scan). */
export const othersQuery = (qc: QueryCreator<Database>, p: RangeCount) =>
  qc
    .selectFrom('fraud_range_numbers')
    .select(sql<number>`count(*)`.as('n'))
    .where('workspace_id', '=', p.workspaceId)
    .where('range_prefix', '=', p.range)
    .where('last_sent_at', '>', p.since)
    .where('phone', '<>', p.phone);

const countOthers = prepared((db, p: RangeCount) => othersQuery(db, p));

/** The number's last send, under its range. */
const recordNumber = prepared((db, p: { workspaceId: string; range: string; phone: string; now: number }) =>
  db
    .insertInto('fraud_range_numbers')
    .values({ workspace_id: p.workspaceId, phone: p.phone, range_prefix: p.range, last_sent_at: p.now })
    .onConflict((oc) => oc.columns(['workspace_id', 'phone']).doUpdateSet({ last_sent_at: p.now })),
);

/**
 * PostgreSQL: the count and the record as one statement (a data-modifying CTE, one round trip). Both parts see
 * the snapshot the statement starts with, taken after the range's lock, so the count holds every earlier send.
 */
const countAndRecordPg = prepared((db, p: RangeCount & { now: number; limit: number }) =>
  db
    .with('others', (qc) => othersQuery(qc, p))
    .with('recorded', (qc) =>
      qc
        .insertInto('fraud_range_numbers')
        .columns(['workspace_id', 'phone', 'range_prefix', 'last_sent_at'])
        .expression(
          qc
            .selectFrom('others')
            .select([
              sql<string>`cast(${p.workspaceId} as text)`.as('workspace_id'),
              sql<string>`cast(${p.phone} as text)`.as('phone'),
              sql<string>`cast(${p.range} as text)`.as('range_prefix'),
              sql<number>`cast(${p.now} as bigint)`.as('last_sent_at'),
            ])
            .where('others.n', '<', p.limit),
        )
        .onConflict((oc) => oc.columns(['workspace_id', 'phone']).doUpdateSet({ last_sent_at: p.now })),
    )
    .selectFrom('others')
    .select('n'),
);

/**
 * Counts the numbers of the range other than `phone` sent to since `since` and, when they are fewer than `limit`
 * (the send may go on), records this number's send. Returns the count. SQLite has no data-modifying CTE: two
 * statements there, which its one write lock keeps together.
 */
export async function countAndRecord(
  db: Db,
  p: RangeCount & { now: number; limit: number },
): Promise<number> {
  if (dialectOf(db) === 'postgres') return Number((await countAndRecordPg(db, p)).rows[0]?.n ?? 0);
  const others = Number((await countOthers(db, p)).rows[0]?.n ?? 0);
  if (others < p.limit) await recordNumber(db, p);
  return others;
}

/**
 * PostgreSQL: `countAndRecord`'s statement sent ahead (store/postgres-pipeline.ts): the statements after it go in the
 * same round trip. Resolves once sent, with the read of its count.
 */
export async function countAndRecordAhead(
  db: Db,
  p: RangeCount & { now: number; limit: number },
): Promise<() => Promise<number>> {
  const { answer } = await countAndRecordPg.ahead(db, p);
  return async () => Number((await answer).rows[0]?.n ?? 0);
}

export const insertBlock = preparedInsert('fraud_blocks');

/** The range's active block (the range row is locked by this transaction already). */
export const setRangeBlock = prepared(
  (db, p: { workspaceId: string; range: string; until: number; blockId: string; reason: string }) =>
    db
      .updateTable('fraud_ranges')
      .set({ blocked_until: p.until, block_id: p.blockId, block_reason: p.reason })
      .where('workspace_id', '=', p.workspaceId)
      .where('range_prefix', '=', p.range),
);

/** One more send refused by the block (one statement: concurrent refusals all count). */
export const countRefusal = prepared((db, p: { blockId: string }) =>
  db.updateTable('fraud_blocks').set({ refused: sql<number>`refused + 1` }).where('id', '=', p.blockId),
);

/**
 * Ends the active block of a range or a country (its key) by hand; returns the ids of the blocks it ended (none:
 * nothing was active).
 */
export async function liftRange(
  db: Db,
  p: { workspaceId: string; range: string; now: number; by: string },
): Promise<string[]> {
  const ended = await db
    .updateTable('fraud_blocks')
    .set({ lifted_at: p.now, lifted_by: p.by })
    .where('workspace_id', '=', p.workspaceId)
    .where('range_prefix', '=', p.range)
    .where('lifted_at', 'is', null)
    .where('blocked_until', '>', p.now)
    .returning('id')
    .execute();
  await db
    .updateTable('fraud_ranges')
    .set({ blocked_until: null, block_id: null, block_reason: null })
    .where('workspace_id', '=', p.workspaceId)
    .where('range_prefix', '=', p.range)
    .execute();
  // A lifted range starts afresh: the numbers that tripped it would otherwise trip it again at the next send.
  await db
    .deleteFrom('fraud_range_numbers')
    .where('workspace_id', '=', p.workspaceId)
    .where('range_prefix', '=', p.range)
    .execute();
  return ended.map((r) => r.id);
}

/** The workspace's blocks, newest first. */
export function listBlocks(db: Db, workspaceId: string, limit: number): Promise<BlockRow[]> {
  return db
    .selectFrom('fraud_blocks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function findSettings(db: Db, workspaceId: string) {
  return db
    .selectFrom('fraud_settings')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export async function saveSettings(
  db: Db,
  row: FraudLimits & { workspace_id: string; updated_at: number },
): Promise<void> {
  const { workspace_id: _, ...changes } = row;
  await db
    .insertInto('fraud_settings')
    .values(row)
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet(changes))
    .execute();
}

export async function listAllow(
  db: Db,
  workspaceId: string,
): Promise<{ prefix: string; created_at: number }[]> {
  return db
    .selectFrom('fraud_allow')
    .select(['prefix', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('prefix')
    .execute();
}

export async function countAllow(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('fraud_allow')
    .select(sql<number>`count(*)`.as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Adds an entry; an entry already listed stays as it is. */
export async function addAllow(
  db: Db,
  p: { workspaceId: string; prefix: string; now: number },
): Promise<void> {
  await db
    .insertInto('fraud_allow')
    .values({ workspace_id: p.workspaceId, prefix: p.prefix, created_at: p.now })
    .onConflict((oc) => oc.columns(['workspace_id', 'prefix']).doNothing())
    .execute();
}

export async function removeAllow(db: Db, workspaceId: string, prefix: string): Promise<boolean> {
  const r = await db
    .deleteFrom('fraud_allow')
    .where('workspace_id', '=', workspaceId)
    .where('prefix', '=', prefix)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * What the guard no longer reads: a number's last send once it is past the longest window a setting allows (a
 * day), a range row with no block in force that no send touched since, and a block that ended before `blocksBefore`.
 */
export async function pruneBefore(
  db: Db,
  p: { windowsBefore: number; blocksBefore: number; now: number },
): Promise<{ numbers: number; ranges: number; blocks: number }> {
  // One row per number sent to within a day: a burst of sends leaves as many, so they go in batches.
  const numbers = await deleteInBatches(db, 'fraud_range_numbers', ['workspace_id', 'phone'], (q) =>
    q.where('last_sent_at', '<', p.windowsBefore),
  );
  const ranges = await db
    .deleteFrom('fraud_ranges')
    .where('touched_at', '<', p.windowsBefore)
    .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', p.now)]))
    .executeTakeFirst();
  const blocks = await db
    .deleteFrom('fraud_blocks')
    .where('blocked_until', '<', p.blocksBefore)
    .executeTakeFirst();
  return {
    numbers,
    ranges: Number(ranges.numDeletedRows),
    blocks: Number(blocks.numDeletedRows),
  };
}
