// The phone directory: each workspace's numbers keyed by their digits reversed, so "the number ends with 156" is a
// range of an index ("651…") instead of a scan. Kept by the sweeper from the verifications created since its
// watermark: a send writes nothing more (its insert is the API's hot path). A number never changes, so a slice is
// final as soon as its rows are surely committed (SETTLE_MS); the log reads the few rows above the watermark raw.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import type { Database } from '../store/tables.js';
import {
  advanceWatermark,
  chunksForInsert,
  firstCreatedFrom,
  readWatermark,
  SETTLE_MS,
} from '../store/watermarks.js';
import { upperBoundOf } from './phone-query.js';

/**
 * Verifications one sweeper step indexes at most. Each new number is a write at a random place of the directory's
 * index (tens of µs on SQLite, most of it the WAL): a step stays a short transaction on the serving connection.
 */
const ROWS_PER_STEP = 200;
const STEPS_PER_SWEEP = 50;
/** A catch-up outside a serving process (scripts, tests): larger sorted batches write far fewer pages. */
const ROWS_PER_CATCH_UP_STEP = 20_000;

/** "+61412345678" -> "87654321416". */
export function reversedDigits(phone: string): string {
  return [...phone.replace(/\D/g, '')].reverse().join('');
}

type Where = (eb: ExpressionBuilder<Database, 'verifications'>) => Expression<SqlBool>;

/** The directory's keys of the numbers that end with `digits`: a range of its primary key. */
function reversedRange(digits: string): [string, string] {
  const reversed = reversedDigits(digits);
  return [reversed, upperBoundOf(reversed)];
}

/**
 * The workspace's verifications to a number of the directory that ends with `digits`, of `limit` numbers at most
 * (the caller counts them first, and takes this way only below that).
 */
export function endsWithIndexed(workspaceId: string, digits: string, limit: number): Where {
  const [low, high] = reversedRange(digits);
  return (eb) =>
    eb.and([
      eb('workspace_id', '=', workspaceId),
      eb(
        'phone',
        'in',
        eb
          .selectFrom('phone_directory')
          .select('phone')
          .where('workspace_id', '=', workspaceId)
          .where('reversed', '>=', low)
          .where('reversed', '<=', high)
          .limit(limit),
      ),
    ]);
}

/**
 * The workspace's verifications not in the directory yet, created since `since` (its watermark), that end with
 * `digits`.
 */
export function endsWithRecent(workspaceId: string, digits: string, since: number): Where {
  return (eb) =>
    eb.and([
      eb('workspace_id', '=', workspaceId),
      eb('created_at', '>=', since),
      // Digits only: no LIKE wildcard can come from the user.
      eb('phone', 'like', `%${digits.replace(/\D/g, '')}`),
    ]);
}

/** The directory's entries of the workspace's numbers that end with `digits`. */
export function numbersEndingWith(db: Db, workspaceId: string, digits: string) {
  const [low, high] = reversedRange(digits);
  return db
    .selectFrom('phone_directory')
    .where('workspace_id', '=', workspaceId)
    .where('reversed', '>=', low)
    .where('reversed', '<=', high);
}

export function createPhoneDirectory(deps: { db: Db; reader: Db; clock: Clock }) {
  const { db, reader } = deps;

  /** Indexes the next slice of at most about `rows` verifications; false when every settled one is in. */
  async function indexNext(rows: number): Promise<boolean> {
    const from = await readWatermark(reader, 'phone_directory');
    const settled = deps.clock.now() - SETTLE_MS;
    if (from >= settled) return false;
    const first = await firstCreatedFrom(reader, from);
    // Nothing to write, so no write (an idle server writes nothing): no row lies between the watermark and settled.
    if (first === undefined || first >= settled) return false;
    // The slice ends before the first row past `rows` (rows of one millisecond stay together).
    const next = await reader
      .selectFrom('verifications')
      .select('created_at')
      .where('created_at', '>=', first)
      .orderBy('created_at')
      .offset(rows)
      .limit(1)
      .executeTakeFirst();
    const to = Math.min(settled, Math.max(first + 1, Number(next?.created_at ?? settled)));
    const numbers = await reader
      .selectFrom('verifications')
      .select([
        'workspace_id',
        'phone',
        (eb) => eb.fn.countAll().as('sends'),
        (eb) => eb.fn.max('created_at').as('last'),
      ])
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .groupBy(['workspace_id', 'phone'])
      .execute();
    const entries = numbers
      .map((n) => ({
        workspace_id: n.workspace_id,
        reversed: reversedDigits(n.phone),
        phone: n.phone,
        sends: Number(n.sends),
        last_created_at: Number(n.last),
      }))
      // In the index's order: neighbours share pages, so fewer pages are written.
      .sort((a, b) => (a.workspace_id + a.reversed < b.workspace_id + b.reversed ? -1 : 1));
    await advanceWatermark(db, 'phone_directory', from, to, async (tx) => {
      for (const chunk of chunksForInsert(entries)) {
        await tx
          .insertInto('phone_directory')
          .values(chunk)
          .onConflict((oc) =>
            oc.columns(['workspace_id', 'reversed']).doUpdateSet({
              sends: (eb) => eb('phone_directory.sends', '+', eb.ref('excluded.sends')),
              // Slices go forward in time: a later slice's newest send is the number's newest.
              last_created_at: (eb) => eb.ref('excluded.last_created_at'),
            }),
          )
          .execute();
      }
    });
    return true;
  }

  async function index(rows: number, maxSteps: number): Promise<number> {
    let steps = 0;
    while (steps < maxSteps && (await indexNext(rows))) steps++;
    return steps;
  }

  return {
    /** The sweeper's share: indexes settled verifications, a few short steps per call; how many steps. */
    index: () => index(ROWS_PER_STEP, STEPS_PER_SWEEP),
    /** Indexes every settled verification in large steps (scripts and tests, never a serving process). */
    catchUp: async () => ({ steps: await index(ROWS_PER_CATCH_UP_STEP, Number.POSITIVE_INFINITY) }),
  };
}

export type PhoneDirectory = ReturnType<typeof createPhoneDirectory>;
