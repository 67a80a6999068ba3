// Issue 12, item 6: the dashboard's Audit log page. Newest first, 50 a page with an "Older" link that keeps the
// filters; filtered by action and by who; only the session's workspace; every value escaped; and a bad filter
// (another type, NUL, odd Unicode, a huge value, a repeated parameter) is a 400 showing the form again, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AUDIT_PAGE_SIZE } from '../../src/audit/filter.js';
import { createTestApp, type SeededWorkspace, seedWorkspace, type TestApp } from '../helpers/app.js';
import { entriesOf } from '../helpers/audit.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

const PAGE = '/dashboard/audit';
const KEYS = '/dashboard/settings/security/api-keys';
const XSS = '<script>alert("audit")</script><img src=x onerror=alert(1)>';

/** The rows of the page's table: each row's cells as text. */
function rowsOf(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) =>
      (cell[1] ?? '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

const olderLink = (html: string) =>
  /<a href="([^"]+)" rel="next">Older/.exec(html)?.[1]?.replaceAll('&amp;', '&');

describe('dashboard: the Audit log page', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let browser: DashboardClient;
  let userId = '';
  const email = 'auditor@example.com';

  before(async () => {
    t = await createTestApp();
    ws = await seedWorkspace(t.services, { name: 'Acme', pumpingGuard: 'default' });
    other = await seedWorkspace(t.services, { name: 'Other Co', pumpingGuard: 'default' });
    await t.services.keys.createKey(
      { workspaceId: other.workspaceId, name: 'other-workspace-key' },
      OPERATOR,
    );
    browser = await signedIn(t.app, t.services, { email, workspaceIds: [ws.workspaceId] });
    userId = (await t.services.accounts.listMembers(ws.workspaceId))[0]?.id ?? '';
    const res = await browser.post(KEYS, { name: XSS, scopes: ['otp'], expires: '' }, { from: KEYS });
    assert.equal(res.statusCode, 200);
  });
  after(() => t.close());

  test('linked in the navigation; lists the workspace’s entries newest first, escaped, and no other workspace’s', async () => {
    const res = await browser.get(PAGE);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<a href="\/dashboard\/audit" aria-current="page">Audit log<\/a>/);
    const rows = rowsOf(res.body);
    const entries = await entriesOf(t.services, ws.workspaceId);
    assert.equal(rows.length, entries.length);
    // Newest first: the key created in the browser, then the sign-in, the membership, then the seeding by the CLI.
    assert.deepEqual(
      rows.map((r) => [r[1], r[2]]),
      [
        [email, 'API key created'],
        [email, 'Signed in'],
        ['Operator (CLI)', 'Member added'],
        ['Operator (CLI)', 'API key created'],
        ['Operator (CLI)', 'Number added'],
        ['Operator (CLI)', 'Workspace created'],
      ],
    );
    assert.equal(rows[0]?.[5], '127.0.0.1', 'the client address');
    assert.ok(!res.body.includes(XSS) && !res.body.includes('<script>alert'), 'the key name is escaped');
    assert.match(res.body, /&lt;script&gt;alert\(&quot;audit&quot;\)&lt;\/script&gt;/);
    assert.doesNotMatch(res.body, /other-workspace-key|Other Co/);
  });

  test('filtered by action and by who; the filters stay chosen in the form', async () => {
    const keys = await browser.get(`${PAGE}?action=key.created`);
    assert.equal(keys.statusCode, 200);
    assert.deepEqual(
      rowsOf(keys.body).map((r) => [r[1], r[2]]),
      [
        [email, 'API key created'],
        ['Operator (CLI)', 'API key created'],
      ],
    );
    assert.match(keys.body, /<option value="key.created" selected="">API key created<\/option>/);

    const cli = rowsOf((await browser.get(`${PAGE}?actor=cli`)).body);
    assert.equal(cli.length, 4);
    assert.ok(cli.every((r) => r[1] === 'Operator (CLI)'));

    const mine = await browser.get(`${PAGE}?actor=${userId}&action=signin.succeeded`);
    assert.deepEqual(
      rowsOf(mine.body).map((r) => [r[1], r[2]]),
      [[email, 'Signed in']],
    );
    assert.match(mine.body, new RegExp(`<option value="${userId}" selected="">${email}</option>`));

    const none = await browser.get(`${PAGE}?actor=system`);
    assert.equal(none.statusCode, 200);
    assert.deepEqual(rowsOf(none.body), []);
    assert.match(none.body, /No entries match these filters/);
  });

  test('pages of 50 with "Older" and "Newest" links that keep the filters', async () => {
    // 60 more changes of one kind: the limits set back and forth.
    for (let i = 0; i < 60; i++) {
      await t.services.workspaces.setLimits(
        {
          workspaceId: ws.workspaceId,
          limits: { send_limit: 10 + (i % 2), send_window_seconds: 600, request_limit_per_minute: 6000 },
        },
        OPERATOR,
      );
    }
    const first = await browser.get(`${PAGE}?action=limits.changed`);
    const firstRows = rowsOf(first.body);
    assert.equal(firstRows.length, AUDIT_PAGE_SIZE);
    const older = olderLink(first.body);
    assert.ok(older?.startsWith(`${PAGE}?action=limits.changed&before=`), older);

    const second = await browser.get(older ?? '');
    assert.equal(second.statusCode, 200);
    const secondRows = rowsOf(second.body);
    assert.equal(secondRows.length, 10);
    assert.ok(secondRows.every((r) => r[2] === 'Limits changed'));
    assert.equal(olderLink(second.body), undefined, 'the last page');
    assert.match(second.body, /<a href="\/dashboard\/audit\?action=limits.changed">« Newest<\/a>/);
    // The pages together hold every entry once, newest first: the first change (5 -> 10) is last.
    assert.equal(secondRows.at(-1)?.[4], 'send_limit: 5 → 10');

    const all = await browser.get(PAGE);
    assert.equal(rowsOf(all.body).length, AUDIT_PAGE_SIZE);
    assert.match(olderLink(all.body) ?? '', /^\/dashboard\/audit\?before=\d+$/);
  });

  test('a bad filter is a 400 with the form and the reason, never a 500', async () => {
    const bad: [string, RegExp][] = [
      ['action=bogus', /action: must be one of/],
      ['action=key.created%00', /action: must be one of/],
      ['action=%00', /action: must be one of/],
      [`action=${encodeURIComponent('ключ.создан')}`, /action: must be one of/],
      [`action=${encodeURIComponent('key.created\u200b')}`, /action: must be one of/],
      [`action=${'a'.repeat(5000)}`, /action: must be one of/],
      ['action=key.created&action=key.revoked', /action: must be given once/],
      [`actor=${encodeURIComponent(XSS)}`, /actor: must be/],
      ['actor=usr_short', /actor: must be/],
      ['actor=CLI', /actor: must be/],
      [`actor=${encodeURIComponent(`${userId}\u0000`)}`, /actor: must be/],
      ['before=abc', /before: must be a page cursor/],
      ['before=-1', /before: must be a page cursor/],
      ['before=1.5', /before: must be a page cursor/],
      ['before=99999999999999999999', /before: must be a page cursor/],
      [`before=${'9'.repeat(5000)}`, /before: must be a page cursor/],
    ];
    for (const [query, reason] of bad) {
      const res = await browser.get(`${PAGE}?${query}`);
      assert.equal(res.statusCode, 400, `${query.slice(0, 60)}: ${res.statusCode}`);
      assert.match(res.body, /<form method="get" action="\/dashboard\/audit"/, 'the form again');
      assert.match(res.body, reason, query.slice(0, 60));
      assert.ok(!res.body.includes('<script>alert'), 'nothing echoed unescaped');
      assert.deepEqual(rowsOf(res.body), []);
    }
  });
});
