// Issue 10, item 5: the log's phone search through indexes. Over randomised numbers, outcomes and times, every
// typed number finds exactly what docs/dashboard.md says (a whole number; the start of the E.164 form; the start
// of the national number or of the E.164 digits; the last digits), newest first, every match once across the
// pages: whether the phone directory has indexed nothing, part or all of the log, and whether few matches are read
// in full or many are looked for newest first (a page that stops early leads on to the rest). The results are the
// old LIKE search's, less the digits found only in the middle of a number.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices, type Services } from '../../src/services.js';
import { HOUR_MS } from '../../src/stats/period.js';
import { SETTLE_MS } from '../../src/store/watermarks.js';
import {
  createVerificationLog,
  type LogFilter,
  parseLogFilter,
  type VerificationLog,
} from '../../src/verification/log.js';
import { COLUMNS } from '../../src/verification/log-page.js';
import { matchesInFull, startsWith } from '../../src/verification/log-search.js';
import { endsWithIndexed, endsWithRecent } from '../../src/verification/phone-directory.js';
import type { Status } from '../../src/vocabulary/statuses.js';
import { servedCallingCodes, wholeNumber } from '../../src/workspaces/phone-number.js';
import { openTestStore, TEST_PUBLIC_URL, TEST_SECRET, type TestStoreHandle } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { TEST_STORE } from '../helpers/database.js';
import {
  insertRows,
  pick,
  type RowSpec,
  randomPhone,
  seeded,
  testSeed,
} from '../helpers/verification-rows.js';

const DAY = 24 * HOUR_MS;
const END = Date.parse('2026-11-21T09:30:00.000Z');
/** The page with nothing typed or chosen: the live verifications. */
const NO_FILTER: LogFilter = parseLogFilter({});

interface Row extends RowSpec {
  id: string;
}

/** The documented rules, in plain code: does the number `phone` match what was typed? */
function matches(phone: string, typed: string): boolean {
  const digits = typed.replace(/\D/g, '');
  if (digits === '') return true;
  const whole = wholeNumber(typed, 'AU');
  if (whole) return phone === whole;
  if (typed.trim().startsWith('+')) return phone.startsWith(`+${digits}`);
  const national = digits.replace(/^0+(?=\d)/, '');
  return (
    servedCallingCodes().some((code) => phone.startsWith(`+${code}${national}`)) ||
    (!digits.startsWith('0') && phone.startsWith(`+${digits}`)) ||
    phone.endsWith(national)
  );
}

/** What the LIKE search before the index matched: "+…" from the start, digits anywhere (trunk 0 dropped). */
function matchedBefore(phone: string, typed: string): boolean {
  const digits = typed.replace(/\D/g, '');
  if (digits === '') return true;
  return typed.trim().startsWith('+')
    ? phone.startsWith(`+${digits}`)
    : phone.includes(digits.replace(/^0+(?=\d)/, ''));
}

describe('verifications log: phone search', () => {
  let handle: TestStoreHandle;
  let services: Services;
  let clock: FakeClock;
  let workspaceId: string;
  const rows: Row[] = [];
  const seed = testSeed();
  const random = seeded(seed);

  before(async () => {
    clock = fakeClock(END);
    handle = await openTestStore();
    services = createServices({
      store: handle.store,
      secret: TEST_SECRET,
      clock,
      publicUrl: TEST_PUBLIC_URL,
    });
    workspaceId = (await services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR)).id;
    await services.workspaces.addNumber({ workspaceId, number: '+61491570156' }, OPERATOR);
    const other = (await services.workspaces.createWorkspace({ name: 'Other' }, OPERATOR)).id;
    const numbers = Array.from({ length: 300 }, () => randomPhone(random));
    const specs: RowSpec[] = Array.from({ length: 1500 }, () => {
      const { phone, country } = pick(random, numbers);
      // The last minutes too: rows the phone directory cannot have yet.
      const createdAt = END - Math.floor(random() * 5 * DAY * (random() < 0.1 ? 0.001 : 1));
      const status = pick(random, ['verified', 'expired', 'failed', 'undelivered', 'canceled'] as Status[]);
      return {
        workspaceId,
        phone,
        country,
        createdAt,
        status,
        channel: pick(random, ['sms', 'voice'] as const),
      };
    });
    const ids = await insertRows(handle.store.db, specs);
    specs.forEach((spec, i) => {
      rows.push({ ...spec, id: ids[i] as string });
    });
    // The same numbers in another workspace: never found here.
    await insertRows(
      handle.store.db,
      numbers.slice(0, 50).map(({ phone }) => ({ workspaceId: other, phone, createdAt: END - DAY })),
    );
  });
  after(async () => {
    await services.dispatcher.drain();
    await handle.close();
  });

  /** Something typed about a random stored number, as people type: whole, its start, its end, its middle. */
  function typedNumber(): string {
    const { phone } = pick(random, rows);
    const digits = phone.slice(1);
    const national = phone.startsWith('+1') ? digits.slice(1) : digits.slice(2);
    const trunk = phone.startsWith('+1') ? '' : '0';
    const k = 1 + Math.floor(random() * 7);
    return pick(random, [
      () => phone,
      () => `${trunk}${national.slice(0, 3)} ${national.slice(3, 6)} ${national.slice(6)}`,
      () => `+${digits.slice(0, k + 1)}`,
      () => `${trunk}${national.slice(0, k)}`,
      () => digits.slice(-k),
      () => digits.slice(-k),
      () => national.slice(3, 6),
      () => digits.slice(0, k + 2),
      () => `%${digits.slice(-3)}_`,
      () => pick(random, ['1', '4', '0', '+6', '+1', '+64', 'no digits']),
    ])();
  }

  function randomFilter(phone: string): LogFilter {
    const roll = random();
    if (roll < 0.6) return { ...NO_FILTER, phone };
    if (roll < 0.75)
      return { ...NO_FILTER, phone, status: pick(random, ['verified', 'undelivered'] as const) };
    if (roll < 0.9) return { ...NO_FILTER, phone, channel: 'voice' };
    return { ...NO_FILTER, phone, from: '2026-11-19', to: '2026-11-20' };
  }

  function expected(filter: LogFilter): string[] {
    const from = filter.from ? Date.parse(`${filter.from}T00:00:00Z`) : -Infinity;
    const to = filter.to ? Date.parse(`${filter.to}T00:00:00Z`) + DAY : Infinity;
    return rows
      .filter((r) => matches(r.phone, filter.phone))
      .filter((r) => !filter.status || r.status === filter.status)
      .filter((r) => !filter.channel || r.channel === filter.channel)
      .filter((r) => r.createdAt >= from && r.createdAt < to)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
  }

  /** Every page, following "Older" to the end. */
  async function everyPage(log: VerificationLog, filter: LogFilter) {
    const ids: string[] = [];
    let incomplete = 0;
    let before = '';
    for (let page = 0; page < 500; page++) {
      const result = await log.list(workspaceId, { ...filter, before });
      assert.ok(result.rows.length <= 50);
      if (result.incomplete) incomplete++;
      ids.push(...result.rows.map((r) => r.id));
      if (!result.older) return { ids, incomplete };
      before = result.older;
    }
    throw new Error('more pages than rows');
  }

  async function assertFindsWhatTheDocsSay(log: VerificationLog, label: string) {
    let incompletePages = 0;
    for (let i = 0; i < 40; i++) {
      const filter = randomFilter(typedNumber());
      const found = await everyPage(log, filter);
      const want = expected(filter);
      assert.deepEqual(found.ids, want, `seed ${seed}, ${label}: ${JSON.stringify(filter)}`);
      incompletePages += found.incomplete;
      // Never more than the LIKE search found; the very same for "+…", which is unchanged.
      const before = new Set(rows.filter((r) => matchedBefore(r.phone, filter.phone)).map((r) => r.id));
      assert.ok(want.every((id) => before.has(id)));
      if (filter.phone.trim().startsWith('+') && !wholeNumber(filter.phone, 'AU')) {
        assert.equal(rows.filter((r) => matches(r.phone, filter.phone)).length, before.size);
      }
    }
    return incompletePages;
  }

  const smallLimits = () =>
    createVerificationLog({
      db: handle.store.reader,
      clock,
      searchLimits: { matchesReadInFull: 40, newestLookedAt: 60 },
    });

  test('nothing in the phone directory yet: the raw rows find it all', async () => {
    await assertFindsWhatTheDocsSay(services.log, 'directory empty');
    await assertFindsWhatTheDocsSay(smallLimits(), 'directory empty, small limits');
  });

  test('part of the log in the directory, the rest read raw', async () => {
    clock.set(END - 2 * DAY);
    await services.phoneDirectory.catchUp();
    clock.set(END);
    await assertFindsWhatTheDocsSay(services.log, 'directory behind');
  });

  test('the directory up to date (the last minutes read raw); many matches looked for newest first', async () => {
    await services.phoneDirectory.catchUp();
    await assertFindsWhatTheDocsSay(services.log, 'directory up to date');
    const incomplete = await assertFindsWhatTheDocsSay(smallLimits(), 'small limits');
    assert.ok(incomplete > 0, 'some pages stopped early and led on to the older ones');
  });

  test('a page that stops early says so, shows what it found and leads on from where it stopped', async () => {
    const log = smallLimits();
    // "1": a tenth of all numbers end with it, more than the small limits read in full; few of them canceled.
    const filter = { ...NO_FILTER, phone: '1', status: 'canceled' as const };
    const page = await log.list(workspaceId, filter);
    const newest = rows.slice().sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const lookedAt = newest.slice(0, 60);
    const stop = lookedAt[lookedAt.length - 1];
    assert.equal(page.incomplete, true);
    assert.deepEqual(
      page.rows.map((r) => r.id),
      expected(filter).filter((id) => lookedAt.some((r) => r.id === id)),
      'the matches among the 60 newest verifications',
    );
    assert.equal(page.older, `${stop?.createdAt}~${stop?.id}`);
  });

  test('edges: a range ends where the nines do; the watermark of the directory splits no match', async () => {
    const { db } = handle.store;
    const find = async (phone: string) =>
      (await services.log.list(workspaceId, { ...NO_FILTER, phone })).rows.map((r) => r.phone).sort();
    // A number that is the start followed by nines only: the last one a range of that start holds. (Landlines:
    // the random numbers are mobiles.)
    await insertRows(db, [{ workspaceId, phone: '+61299999999', createdAt: END - 3 * DAY }]);
    await services.phoneDirectory.catchUp();
    assert.deepEqual(await find('+61 299'), ['+61299999999']);
    assert.deepEqual(await find('0299 999'), ['+61299999999']);
    assert.deepEqual(await find('299999999'), ['+61299999999']);
    // Either side of the watermark: the one before it is found in the directory, the others in the raw rows.
    clock.set(END + 1000);
    const w = clock.now() - SETTLE_MS;
    await insertRows(db, [
      { workspaceId, phone: '+61274242424', createdAt: w - 1 },
      { workspaceId, phone: '+61284242424', createdAt: w },
      { workspaceId, phone: '+61294242424', createdAt: w + 1 },
    ]);
    await services.phoneDirectory.catchUp();
    const indexed = await db
      .selectFrom('phone_directory')
      .select('phone')
      .where('phone', 'like', '%4242424')
      .execute();
    assert.deepEqual(
      indexed.map((r) => r.phone),
      ['+61274242424'],
    );
    assert.deepEqual(await find('4242424'), ['+61274242424', '+61284242424', '+61294242424']);
  });

  test('the rows not in the directory yet are read through (workspace_id, created_at, phone): the number is tested in the index', async () => {
    const { db } = handle.store;
    // Migration 0018: after a burst of sends those rows are tens of thousands; with the number in the index, SQLite
    // looks up in the table only the rows that end with the digits.
    const columns =
      TEST_STORE === 'sqlite'
        ? (
            await db.executeQuery<{ name: string }>(
              CompiledQuery.raw(`PRAGMA index_info('verifications_workspace_created')`),
            )
          ).rows.map((r) => r.name)
        : (
            await db.executeQuery<{ name: string }>(
              CompiledQuery.raw(
                `SELECT a.attname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                 JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                 WHERE c.relname = 'verifications_workspace_created' ORDER BY k.n`,
              ),
            )
          ).rows.map((r) => r.name);
    assert.deepEqual(columns, ['workspace_id', 'created_at', 'phone']);
    if (TEST_STORE !== 'sqlite') return;
    const recent = db
      .selectFrom('verifications')
      .select(COLUMNS)
      .where(endsWithRecent(workspaceId, '123', END - SETTLE_MS))
      .compile();
    const plan = (
      await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${recent.sql}`, [...recent.parameters]),
      )
    ).rows.map((r) => r.detail);
    assert.deepEqual(plan, [
      'SEARCH verifications USING INDEX verifications_workspace_created (workspace_id=? AND created_at>?)',
    ]);
  });

  test('few matches on SQLite: each way reads its index only, and each match is looked up once by its rowid', {
    skip: TEST_STORE !== 'sqlite' && 'PostgreSQL keeps the union of whole rows (log-search.ts)',
  }, async () => {
    const { db } = handle.store;
    // As searchPartial builds them for "0412 3": a start, the directory's ends, the recent rows' ends.
    const ways = [
      startsWith(workspaceId, '+614123'),
      endsWithIndexed(workspaceId, '4123', 100),
      endsWithRecent(workspaceId, '4123', END - SETTLE_MS),
    ];
    const query = matchesInFull(db, ways, [sql`mode = ${'live'}`])
      .select(COLUMNS)
      .compile();
    const plan = (
      await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
      )
    ).rows.map((r) => r.detail);
    assert.equal(plan[0], 'SEARCH verifications USING INTEGER PRIMARY KEY (rowid=?)');
    const reads = plan.filter(
      (d) => d.startsWith('SEARCH verifications') || d.startsWith('SCAN verifications'),
    );
    assert.deepEqual(reads.slice(1), [
      'SEARCH verifications USING COVERING INDEX verifications_send_window (workspace_id=? AND phone>? AND phone<?)',
      'SEARCH verifications USING COVERING INDEX verifications_send_window (workspace_id=? AND phone=?)',
      'SEARCH verifications USING COVERING INDEX verifications_workspace_created (workspace_id=? AND created_at>?)',
    ]);
  });
});
