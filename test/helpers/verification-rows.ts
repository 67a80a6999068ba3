// Verifications written straight into the store, thousands at once, for the dashboard read-models' tests (the
// API takes seconds per thousand sends), with every column as a send writes it; and a seeded random source, so
// a failing randomised test names the seed that reproduces it.
import { newId } from '../../src/ids.js';
import type { Db } from '../../src/store/database.js';
import type { VerificationsTable } from '../../src/store/tables.js';
import type { Channel } from '../../src/vocabulary/channels.js';
import type { Country } from '../../src/vocabulary/countries.js';
import type { Mode } from '../../src/vocabulary/modes.js';
import type { Status } from '../../src/vocabulary/statuses.js';

export interface RowSpec {
  workspaceId: string;
  phone: string;
  createdAt: number;
  channel?: Channel;
  status?: Status;
  /** Verified rows: when (default: 20 s after creation; null as a row could hold). */
  verifiedAt?: number | null;
  /** null: a row written before the country was kept. */
  country?: Country | null;
  ttlSeconds?: number;
  /** Default live. */
  mode?: Mode;
}

export function verificationRow(spec: RowSpec): VerificationsTable {
  const status = spec.status ?? 'expired';
  return {
    id: newId('ver'),
    workspace_id: spec.workspaceId,
    phone: spec.phone,
    channel: spec.channel ?? 'sms',
    status,
    code_hash: 'f'.repeat(64),
    code_length: 6,
    attempts: status === 'verified' ? 1 : 0,
    max_attempts: 5,
    brand_name: 'Acme',
    metadata: '{}',
    expires_at: spec.createdAt + (spec.ttlSeconds ?? 300) * 1000,
    verified_at:
      status !== 'verified'
        ? null
        : spec.verifiedAt === undefined
          ? spec.createdAt + 20_000
          : spec.verifiedAt,
    created_at: spec.createdAt,
    updated_at: spec.createdAt,
    delivery_ok: status === 'undelivered' ? 0 : 1,
    delivery_provider: 'development',
    provider_id: null,
    from_number: '+61491570156',
    error_code: status === 'undelivered' ? 'undeliverable' : null,
    error_message: null,
    seq: 1,
    country: spec.country === undefined ? 'AU' : spec.country,
    // Only when the spec names one: the column's default (live) otherwise, so the rows fit a database migrated
    // before 0016 too.
    ...(spec.mode === undefined ? {} : { mode: spec.mode }),
  } as VerificationsTable;
}

/** Inserts the rows (in batches) and returns their ids in the order given. */
export async function insertRows(db: Db, specs: RowSpec[]): Promise<string[]> {
  // One batch names the same columns in every row: where any row has a mode, every row says its own.
  const anyMode = specs.some((spec) => spec.mode !== undefined);
  const rows = specs.map((spec) => verificationRow(anyMode ? { ...spec, mode: spec.mode ?? 'live' } : spec));
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('verifications')
      .values(rows.slice(i, i + 200))
      .execute();
  }
  return rows.map((r) => r.id);
}

/** A seeded pseudo-random source in [0, 1) (mulberry32): the same seed, the same data. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One of `items`, by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** The seed of a randomised test: TEST_SEED to reproduce a failure, else a new one (the test prints it). */
export function testSeed(): number {
  return Number(process.env.TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
}

/** A number of each served country, as a send would store it. */
export function randomPhone(random: () => number): { phone: string; country: Country } {
  const digits = (n: number) => String(Math.floor(random() * 10 ** n)).padStart(n, '0');
  const country = pick(random, ['AU', 'AU', 'AU', 'US', 'CA', 'GB', 'NZ'] as const);
  const phone = {
    AU: () => `+614${digits(8)}`,
    US: () => `+1212555${digits(4)}`,
    CA: () => `+1416555${digits(4)}`,
    GB: () => `+447${digits(9)}`,
    NZ: () => `+6421${digits(7)}`,
  }[country]();
  return { phone, country };
}

/** Finished verifications of random numbers, channels, outcomes and times to verify, created in [from, to). */
export function randomRows(
  random: () => number,
  workspaceIds: string[],
  count: number,
  from: number,
  to: number,
) {
  return Array.from({ length: count }, (): RowSpec => {
    const createdAt = from + Math.floor(random() * (to - from));
    const status = pick(random, [
      'verified',
      'verified',
      'verified',
      'expired',
      'failed',
      'undelivered',
      'canceled',
    ] as const);
    const { phone, country } = randomPhone(random);
    return {
      workspaceId: pick(random, workspaceIds),
      phone,
      createdAt,
      channel: pick(random, ['sms', 'voice'] as const),
      status,
      // Now and then a verified row without its time (the raw query skips it in the median; so must roll-ups).
      verifiedAt: random() < 0.05 ? null : createdAt + Math.floor(random() * 900_000),
      // A row written before the country was kept: counted under its number's prefix.
      country: random() < 0.1 ? null : country,
    };
  });
}
