// Refused sends in the verifications log (docs/dashboard.md "Refused sends"): a send the pumping guard (a block,
// a number type) or the failed-guess ceiling refuses leaves one row, written by the refusal itself, that the log
// shows beside the verifications (status "refused", the rule, the block), under the same filters and pages; the
// accepted path writes none; retention deletes them like the verifications. The public API is unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { listLog, PAGE_SIZE, parseLogFilter } from '../../src/verification/log.js';
import { phoneQuery } from '../../src/verification/phone-query.js';
import { type Client, client, codeFor, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';
import { assertProblem, clockedApp, sendOk, wrongCode } from '../helpers/verification.js';

const inRange = (i: number) => `+61412345${String(i).padStart(3, '0')}`;
const DAY = 86_400_000;

describe('refused sends in the verifications log', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  let workspaceId: string;
  let browser: DashboardClient;

  before(async () => {
    ({ t, clock } = await clockedApp());
    const ws = await seedWorkspace(t.services, { name: 'Acme', pumpingGuard: 'default' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    await t.services.fraud.setSettings(workspaceId, { range_limit: 2 }, OPERATOR);
    browser = await signedIn(t.app, t.services, { workspaceIds: [workspaceId] });
  });
  after(() => t.close());

  const refusedRows = () =>
    t.store.db.selectFrom('refused_sends').selectAll().orderBy('created_at').orderBy('id').execute();
  const list = (query: Record<string, string> = {}) =>
    t.services.log.list(workspaceId, parseLogFilter(query));

  test('an accepted send writes no refused row; a blocked one writes one naming its rule, block and channel', async () => {
    await sendOk(api, { phone: inRange(0), channel: 'sms' });
    clock.advance(1000);
    await sendOk(api, { phone: inRange(1) });
    assert.equal((await refusedRows()).length, 0);
    clock.advance(1000);
    // The third number of the range trips the block (limit 2), and the next send meets it.
    assertProblem(await api.send({ phone: inRange(2), channel: 'sms' }), 403, 'destination_blocked');
    clock.advance(1000);
    assertProblem(await api.send({ phone: inRange(3) }), 403, 'destination_blocked');
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    assert.ok(block);
    const rows = await refusedRows();
    assert.deepEqual(
      rows.map((r) => [r.phone, r.country, r.channel, r.reason, r.block_id, r.workspace_id]),
      [
        [inRange(2), 'AU', 'sms', 'range_velocity', block.id, workspaceId],
        [inRange(3), 'AU', 'voice', 'range_velocity', block.id, workspaceId],
      ],
    );
    assert.equal(block.refused, 2, 'the block counts the same refusals');
    for (const r of rows) assert.match(r.id, /^ref_/);
  });

  test('a number type and the failed-guess ceiling leave a row too (no block)', async () => {
    clock.advance(1000);
    assertProblem(await api.send({ phone: '+611900123456' }), 403, 'destination_blocked');
    await t.services.workspaces.setLimits(
      { workspaceId, limits: { guess_limit: 1, guess_window_seconds: 600 } },
      OPERATOR,
    );
    clock.advance(1000);
    const sent = await sendOk(api, { phone: '+61491000111', channel: 'sms' });
    const wrong = wrongCode(await codeFor(t.services, '+61491000111'));
    assert.equal(
      ((await api.check({ verification_id: sent.id, code: wrong })).json() as { verified: boolean }).verified,
      false,
    );
    clock.advance(1000);
    assertProblem(await api.send({ phone: '+61491000111', channel: 'sms' }), 429, 'rate_limited');
    const rows = (await refusedRows()).slice(2);
    assert.deepEqual(
      rows.map((r) => [r.phone, r.reason, r.block_id]),
      [
        ['+611900123456', 'number_type', null],
        ['+61491000111', 'guess_ceiling', null],
      ],
    );
    await t.services.workspaces.setLimits({ workspaceId, limits: { guess_limit: 20 } }, OPERATOR);
  });

  test('the log merges them with the verifications newest first, status refused with the rule', async () => {
    const page = await list();
    assert.deepEqual(
      page.rows.map((r) => [r.phone, r.status, r.reason]),
      [
        ['+61491000111', 'refused', 'guess_ceiling'],
        ['+61491000111', 'pending', null],
        ['+611900123456', 'refused', 'number_type'],
        [inRange(3), 'refused', 'range_velocity'],
        [inRange(2), 'refused', 'range_velocity'],
        [inRange(1), 'pending', null],
        [inRange(0), 'pending', null],
      ],
    );
    assert.equal(page.older, null);
  });

  test('the status filter: refused lists only refused sends; a status lists only verifications', async () => {
    const refused = await list({ status: 'refused' });
    assert.deepEqual(
      refused.rows.map((r) => r.status),
      ['refused', 'refused', 'refused', 'refused'],
    );
    const pending = await list({ status: 'pending' });
    assert.deepEqual(
      pending.rows.map((r) => r.status),
      ['pending', 'pending', 'pending'],
    );
    // The channel, a whole number and its last digits filter the refused sends as they do the verifications.
    assert.deepEqual(
      (await list({ status: 'refused', channel: 'sms' })).rows.map((r) => r.phone),
      ['+61491000111', inRange(2)],
    );
    assert.deepEqual(
      (await list({ phone: inRange(3) })).rows.map((r) => [r.phone, r.status]),
      [[inRange(3), 'refused']],
    );
    assert.deepEqual(
      (await list({ phone: '456' })).rows.map((r) => [r.phone, r.status]),
      [['+611900123456', 'refused']],
    );
    assert.deepEqual(
      (await list({ phone: '+614123' })).rows.map((r) => r.phone),
      [inRange(3), inRange(2), inRange(1), inRange(0)],
    );
  });

  test('the dashboard page shows them, links the block to the Fraud page, and opens no detail', async () => {
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    const res = await browser.get('/dashboard/verifications?status=refused');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<option value="refused" selected="">refused \(never sent\)<\/option>/);
    assert.equal((res.body.match(/badge-refused/g) ?? []).length, 4);
    assert.ok(res.body.includes(`href="/dashboard/fraud#block-${block?.id}"`), 'links the block');
    assert.match(res.body, /Failed-guess ceiling/);
    assert.match(res.body, /Number type/);
    assert.ok(!res.body.includes('/dashboard/verifications/ref_'), 'a refused send has no detail page');
    // The full numbers are masked as in the log.
    assert.ok(!res.body.includes('412345002'));
    const fraud = await browser.get('/dashboard/fraud');
    assert.ok(fraud.body.includes(`id="block-${block?.id}"`), 'the Fraud page has the anchor');
  });

  test('the filter inputs attacked: odd, huge, repeated or NUL-laden values are dropped, never a 500', async () => {
    const values = [
      'refused\u0000',
      'REFUSED',
      'refused ',
      '\u202erefused',
      'r'.repeat(100_000),
      '%00',
      'ref_x',
      '😀',
    ];
    for (const value of values) {
      const res = await browser.get(`/dashboard/verifications?status=${encodeURIComponent(value)}`);
      assert.equal(res.statusCode, 200, value.slice(0, 20));
      // 'refused ' is trimmed, as every filter is; the others are no status at all.
      const applied = value === 'refused ' ? 'refused' : '';
      assert.equal(parseLogFilter({ status: value }).status, applied, JSON.stringify(value.slice(0, 20)));
    }
    const twice = await browser.get('/dashboard/verifications?status=refused&status=pending');
    assert.equal(twice.statusCode, 200);
    for (const before of ['1~ref_\u0000', `${'9'.repeat(40)}~ref_abc`, '1~ref_', 'x~ref_abc', '-1~ref_a']) {
      assert.equal(parseLogFilter({ before }).before, '', JSON.stringify(before));
      const res = await browser.get(`/dashboard/verifications?before=${encodeURIComponent(before)}`);
      assert.equal(res.statusCode, 200);
    }
    assert.equal(parseLogFilter({ before: '1700000000000~ref_abc123' }).before, '1700000000000~ref_abc123');
  });

  test('API reads know nothing of them: a refused send has no verification id', async () => {
    const [row] = await refusedRows();
    const res = await api.get(row?.id ?? '');
    assertProblem(res, 404, 'not_found');
  });

  test('retention deletes them with the verifications of their age', async () => {
    clock.advance(31 * DAY);
    const pruned = await t.services.retention.prune();
    assert.equal(pruned.refusedSends, 4);
    assert.equal((await refusedRows()).length, 0);
  });
});

describe('refused sends: pages of the merged log', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  let workspaceId: string;

  before(async () => {
    ({ t, clock } = await clockedApp());
    const ws = await seedWorkspace(t.services, { name: 'Pages', pumpingGuard: 'default' });
    workspaceId = ws.workspaceId;
    api = client(t.app, ws.key);
    await t.services.fraud.setSettings(workspaceId, { range_limit: 1 }, OPERATOR);
    // Interleaved: a verification of a range of its own, then refused sends to a blocked range, 40 times.
    await sendOk(api, { phone: '+61412999000', channel: 'sms' });
    assert.equal((await api.send({ phone: '+61412999001' })).statusCode, 403);
    for (let i = 0; i < 40; i++) {
      clock.advance(1000);
      await sendOk(api, { phone: `+614130${String(i).padStart(2, '0')}000`, channel: 'sms' });
      clock.advance(1000);
      assert.equal((await api.send({ phone: `+61412999${String(i + 2).padStart(3, '0')}` })).statusCode, 403);
    }
  });
  after(() => t.close());

  test('walking the pages lists every verification and refused send once, newest first', async () => {
    const seen: string[] = [];
    let before = '';
    let pages = 0;
    for (;;) {
      const page = await t.services.log.list(workspaceId, parseLogFilter({ before }));
      pages++;
      assert.ok(page.rows.length <= PAGE_SIZE);
      seen.push(...page.rows.map((r) => `${r.created_at}~${r.id}`));
      if (!page.older) break;
      before = page.older;
    }
    assert.equal(pages, 2);
    assert.equal(seen.length, 82, '41 verifications and 41 refused sends');
    assert.equal(new Set(seen).size, 82, 'none twice');
    const sorted = [...seen].sort((a, b) => {
      const [at, aid] = a.split('~') as [string, string];
      const [bt, bid] = b.split('~') as [string, string];
      return Number(bt) - Number(at) || (aid < bid ? 1 : -1);
    });
    assert.deepEqual(seen, sorted);
  });

  test('a last-digits search among many refused sends looks at the newest only, then leads on', async () => {
    const now = clock.now();
    const limits = { matchesReadInFull: 5, newestLookedAt: 10 };
    const filter = parseLogFilter({ phone: '999041', status: 'refused' });
    const query = phoneQuery('999041', 'AU');
    assert.equal(query.kind, 'partial');
    const first = await listLog(t.store.db, workspaceId, filter, now, query, limits);
    // +61412999041 is the 40th refused send: the newest of them, found among the newest 10.
    assert.deepEqual(
      first.rows.map((r) => r.phone),
      ['+61412999041'],
    );
    assert.equal(first.incomplete, true);
    assert.ok(first.older);
    const next = await listLog(
      t.store.db,
      workspaceId,
      { ...filter, before: first.older ?? '' },
      now,
      query,
      limits,
    );
    assert.equal(next.rows.length, 0);
  });

  test('concurrent refused sends each leave exactly one row, and the block counts each', async () => {
    const count = async () =>
      Number(
        (
          await t.store.db
            .selectFrom('refused_sends')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const [block] = await t.services.fraud.listBlocks(workspaceId);
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.send({ phone: `+61412999${String(500 + i)}` })),
    );
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      Array(20).fill(403),
    );
    assert.equal((await count()) - before, 20);
    const [after] = await t.services.fraud.listBlocks(workspaceId);
    assert.equal((after?.refused ?? 0) - (block?.refused ?? 0), 20);
  });
});
