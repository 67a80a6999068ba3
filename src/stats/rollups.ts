// The overview's roll-ups, kept by the sweeper: the API's paths write nothing more for them (no statement, and on
// PostgreSQL no counter row that every send would wait to lock). An hour is rolled up once nothing counted in it
// can change any more (`finalBefore`, store/watermarks.ts), and then never again: a verification's counted columns
// (status, verified_at, channel, country, phone) change only while it is `pending`, and a carrier's late failure
// report on a finished one writes its error columns only (delivery/verification-delivery.ts).
// The overview reads roll-ups below the watermark and raw rows above it (overview.ts).
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import {
  advanceWatermark,
  chunksForInsert,
  finalBefore,
  firstCreatedFrom,
  readWatermark,
} from '../store/watermarks.js';
import { HOUR_MS } from './period.js';
import { aggregateHour } from './rollup-queries.js';

/** Hours one sweep rolls up at most: the backlog of an existing database goes in a few sweeps. */
const HOURS_PER_SWEEP = 48;

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

export function createRollups(deps: {
  /** Where the roll-ups are written. */
  db: Db;
  /** Where the hours are aggregated: on SQLite the reader thread, so the serving thread only writes the result. */
  reader: Db;
  clock: Clock;
  /** The longest a code can stay pending (the API's largest ttl_seconds). */
  maxCodeLifetimeMs: number;
}) {
  const { db, reader } = deps;

  /** The hour before which every verification is final: roll-ups may cover up to it. */
  async function closedBefore(): Promise<number> {
    return floorHour(await finalBefore(reader, deps.clock.now(), deps.maxCodeLifetimeMs));
  }

  /** Rolls up the next closed hour (skipping hours without rows); false when there is none. */
  async function rollNext(): Promise<boolean> {
    const from = await readWatermark(reader, 'verification_rollups');
    const closed = await closedBefore();
    if (from >= closed) return false;
    const first = await firstCreatedFrom(reader, from);
    // Nothing to write, so no write (an idle server writes nothing): no row lies between the watermark and closed.
    if (first === undefined || first >= closed) return false;
    const hour = floorHour(first);
    const rows = await aggregateHour(reader, hour);
    // Lost to another process: it wrote this hour; the next step starts from where it left the watermark.
    await advanceWatermark(db, 'verification_rollups', from, hour + HOUR_MS, async (tx) => {
      for (const chunk of chunksForInsert(rows))
        await tx.insertInto('verification_rollups').values(chunk).execute();
    });
    return true;
  }

  async function roll(maxHours: number): Promise<number> {
    let hours = 0;
    while (hours < maxHours && (await rollNext())) hours++;
    return hours;
  }

  return {
    /** The sweeper's share: rolls up closed hours, a bounded number per call; how many it looked at. */
    roll: () => roll(HOURS_PER_SWEEP),
    /** Rolls up every closed hour (scripts and tests; a serving process leaves it to the sweeper). */
    catchUp: async () => ({ hours: await roll(Number.POSITIVE_INFINITY) }),
    /** Every verification created before this is in the roll-ups. */
    rolledBefore: () => readWatermark(reader, 'verification_rollups'),
  };
}

export type Rollups = ReturnType<typeof createRollups>;
