// Dashboard issue item 6: the overview. Tiles and charts for the session's workspace over the last day or week,
// accessible charts (an image with a title, and the same numbers as a table), and an empty state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  client,
  codeFor,
  createTestApp,
  json,
  type SeededWorkspace,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { type DashboardClient, dashboardClient, signedIn } from '../helpers/dashboard.js';

const NOW = Date.parse('2026-11-21T09:30:00.000Z');

/** The text of a tile, by its label. */
function tile(html: string, label: string): string | undefined {
  return new RegExp(`<span class="label">${label}</span><span class="value">([^<]*)</span>`).exec(html)?.[1];
}

describe('dashboard: overview', () => {
  let t: TestApp;
  let clock: FakeClock;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let browser: DashboardClient;

  before(async () => {
    clock = fakeClock(NOW - 3 * 24 * 3_600_000);
    t = await createTestApp({ clock });
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    other = await seedWorkspace(t.services, { name: 'Other Co' });
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  test('without sends: the empty state points to API keys, the quick start and the docs', async () => {
    const res = await browser.get('/dashboard');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /No codes sent in the last 24 hours/);
    assert.match(res.body, /href="\/dashboard\/settings\/security\/api-keys"/);
    assert.match(res.body, /curl -s http:\/\/localhost(:\d+)?\/v1\/otp\/send/);
    assert.match(res.body, /href="\/docs"/);
    assert.doesNotMatch(res.body, /role="img"/);
  });

  test('with sends: tiles, an hourly chart with title and table, channels and countries', async () => {
    const api = client(t.app, ws.key);
    // Three days ago: only in the week.
    assert.equal((await api.send({ phone: '+61412345701', channel: 'sms' })).statusCode, 201);
    clock.set(NOW - 2 * 3_600_000);
    const sent = json<{ id: string }>(await api.send({ phone: '+61412345702', channel: 'sms' }));
    clock.advance(45_000);
    await api.check({ verification_id: sent.id, code: await codeFor(t.services, '+61412345702') });
    assert.equal((await api.send({ phone: '+12125550123', channel: 'voice' })).statusCode, 201);
    assert.equal((await api.send({ phone: '+61412340999', channel: 'sms' })).statusCode, 201);
    // Another workspace's sends count nowhere on this page.
    for (const phone of ['+61412345711', '+61412345712', '+61412345713'])
      assert.equal((await client(t.app, other.key).send({ phone, channel: 'voice' })).statusCode, 201);
    clock.set(NOW);

    const res = await browser.get('/dashboard');
    assert.equal(res.statusCode, 200);
    assert.equal(tile(res.body, 'Codes sent'), '3');
    assert.equal(tile(res.body, 'Verified'), '1');
    assert.equal(tile(res.body, 'Conversion rate'), '33%');
    assert.equal(tile(res.body, 'Delivery failures'), '1');
    assert.equal(tile(res.body, 'Median time to verify'), '45 s');

    // Each chart is an image named by its <title>, described by its <desc>.
    for (const [id, title] of [
      ['chart-timeline', 'Codes sent per hour \\(UTC\\)'],
      ['chart-channels', 'By channel'],
      ['chart-countries', 'By destination country'],
    ]) {
      assert.match(
        res.body,
        new RegExp(
          `<svg[^>]*role="img"[^>]*aria-labelledby="${id}-svg-title"[^>]*aria-describedby="${id}-svg-desc"[^>]*><title id="${id}-svg-title">${title}</title><desc id="${id}-svg-desc">[^<]+</desc>`,
        ),
      );
    }
    assert.match(res.body, /<desc id="chart-timeline-svg-desc">3 codes sent, 1 verified and 1 undelivered/);
    // The same numbers as a table: the 07:00 hour holds all three sends.
    assert.match(
      res.body,
      /<th scope="row">Sat 21 Nov, 07:00–08:00 UTC<\/th><td class="num">1<\/td><td class="num">1<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">1<\/td><td class="num">3<\/td>/,
    );
    assert.match(
      res.body,
      /<th scope="row">SMS<\/th><td class="num">1<\/td><td class="num">1<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">2<\/td><td>50% verified · 1 undelivered<\/td>/,
    );
    assert.match(
      res.body,
      /<th scope="row">Voice call<\/th><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">1<\/td><td class="num">1<\/td>/,
    );
    assert.match(res.body, /<th scope="row">AU<\/th>[\s\S]*?<td class="num">2<\/td><td>2 sent · 50%<\/td>/);
    assert.match(res.body, /<th scope="row">US<\/th>/);
    assert.doesNotMatch(res.body, /No codes sent/);
    assert.match(res.body, /<a href="\/dashboard\?period=day" aria-current="page">Last 24 hours<\/a>/);
  });

  test('?period=week counts the week, per UTC day', async () => {
    const res = await browser.get('/dashboard?period=week');
    assert.equal(res.statusCode, 200);
    assert.equal(tile(res.body, 'Codes sent'), '4');
    assert.match(res.body, /<title id="chart-timeline-svg-title">Codes sent per day \(UTC\)<\/title>/);
    assert.match(
      res.body,
      /<th scope="row">Wed 18 Nov<\/th><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num">1<\/td><td class="num">1<\/td>/,
    );
    assert.match(res.body, /<a href="\/dashboard\?period=week" aria-current="page">Last 7 days<\/a>/);
    // An unknown period is the day.
    assert.equal(tile((await browser.get('/dashboard?period=year')).body, 'Codes sent'), '3');
  });

  test('the workspace with the other sends sees only its own', async () => {
    const theirs = await signedIn(t.app, t.services, { workspaceIds: [other.workspaceId] });
    const res = await theirs.get('/dashboard');
    assert.equal(tile(res.body, 'Codes sent'), '3');
    assert.equal(tile(res.body, 'Verified'), '0');
  });

  test('without a session the overview redirects to sign-in', async () => {
    const res = await dashboardClient(t.app).get('/dashboard?period=week');
    assert.equal(res.statusCode, 302);
    assert.match(String(res.headers.location), /^\/dashboard\/signin/);
  });
});
