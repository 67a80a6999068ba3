// Dashboard issue item 5: the inbox of the development provider. Only the session's workspace, newest first, the
// code marked, a filter by number, the self-refreshing fragment behind the session, and escaped bodies.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  client,
  codeFor,
  createTestApp,
  type SeededWorkspace,
  seedWorkspace,
  type TestApp,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { type DashboardClient, dashboardClient, signedIn } from '../helpers/dashboard.js';

/** The destinations of the listed messages, in page order. */
const listedTo = (html: string) => [...html.matchAll(/<strong>(\+\d+)<\/strong>/g)].map((m) => m[1]);

describe('dashboard: inbox', () => {
  let t: TestApp;
  let clock: FakeClock;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let browser: DashboardClient;

  before(async () => {
    clock = fakeClock();
    t = await createTestApp({ clock });
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    other = await seedWorkspace(t.services, { name: 'Other Co' });
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  test('empty: explains that messages appear here when codes go through the development provider', async () => {
    const res = await browser.get('/dashboard/inbox');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /No messages yet/);
    assert.match(res.body, /no carrier is configured[\s\S]*development provider/);
    assert.match(res.body, /data-refresh="\/dashboard\/inbox\/messages" data-interval="3000"/);
  });

  test('lists only this workspace’s messages, newest first, with channel, route, time and the code marked', async () => {
    const api = client(t.app, ws.key);
    assert.equal((await api.send({ phone: '+61412345801', channel: 'sms' })).statusCode, 201);
    clock.advance(1000);
    assert.equal(
      (await client(t.app, other.key).send({ phone: '+61412345899', channel: 'sms' })).statusCode,
      201,
    );
    // Same millisecond as the next send: the outbox order still puts the later one first.
    assert.equal((await api.send({ phone: '+61412345802', channel: 'voice' })).statusCode, 201);
    assert.equal((await api.send({ phone: '+61412345803', channel: 'sms' })).statusCode, 201);

    const res = await browser.get('/dashboard/inbox');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(listedTo(res.body), ['+61412345803', '+61412345802', '+61412345801']);
    assert.doesNotMatch(res.body, /\+61412345899/);
    assert.doesNotMatch(res.body, /No messages yet/);

    const smsCode = await codeFor(t.services, '+61412345803');
    assert.match(res.body, new RegExp(`Your verification code is <mark>${smsCode}</mark></p>`));
    const voiceCode = [...(await codeFor(t.services, '+61412345802'))].join(', ');
    assert.match(
      res.body,
      new RegExp(`code is: <mark>${voiceCode}</mark>\\. Again, your code is: <mark>${voiceCode}</mark>\\.`),
    );
    assert.match(res.body, /<span class="badge badge-channel-voice">Voice call<\/span>/);
    assert.match(res.body, /<span class="badge badge-channel-sms">SMS<\/span>/);
    assert.match(res.body, /<span class="muted">\+61491570156<\/span>/, 'the sending number');
    assert.match(
      res.body,
      /<time datetime="2026-11-21T09:30:01.000Z" class="muted small">2026-11-21 09:30:01 UTC<\/time>/,
    );
  });

  test('the fragment endpoint returns the list alone, the same messages, and only with a session', async () => {
    const res = await browser.get('/dashboard/inbox/messages');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.doesNotMatch(res.body, /<html|<nav|<form/);
    assert.match(res.body, /^<ol class="inbox-list"/);
    assert.deepEqual(listedTo(res.body), ['+61412345803', '+61412345802', '+61412345801']);
    // The fragment is what the page's list region holds, so a refresh changes nothing until a message arrives.
    const page = (await browser.get('/dashboard/inbox')).body;
    assert.ok(page.includes(res.body));

    const anonymous = await dashboardClient(t.app).get('/dashboard/inbox/messages');
    assert.equal(anonymous.statusCode, 302);
    assert.match(
      String(anonymous.headers.location),
      /^\/dashboard\/signin\?next=%2Fdashboard%2Finbox%2Fmessages/,
    );
    assert.doesNotMatch(anonymous.body, /\+614123458/);
  });

  test('a new message appears in the fragment without reloading the page', async () => {
    clock.advance(1000);
    assert.equal(
      (await client(t.app, ws.key).send({ phone: '+61412345804', channel: 'sms' })).statusCode,
      201,
    );
    const res = await browser.get('/dashboard/inbox/messages');
    assert.equal(listedTo(res.body)[0], '+61412345804');
  });

  test('the filter by number: any format or part of it, also in the refreshed region', async () => {
    for (const to of ['+61 412 345 802', '0412345802', '5802']) {
      const res = await browser.get(`/dashboard/inbox?to=${encodeURIComponent(to)}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(listedTo(res.body), ['+61412345802'], `filter ${to}`);
    }
    const page = await browser.get('/dashboard/inbox?to=5802');
    assert.match(page.body, /data-refresh="\/dashboard\/inbox\/messages\?to=5802"/);
    assert.match(page.body, /<input id="inbox-to" name="to" type="search"[^>]*value="5802"/);
    assert.deepEqual(listedTo((await browser.get('/dashboard/inbox/messages?to=5802')).body), [
      '+61412345802',
    ]);

    const none = await browser.get('/dashboard/inbox?to=0000');
    assert.deepEqual(listedTo(none.body), []);
    assert.match(none.body, /No messages to numbers containing “0000”/);
    // The other workspace's number is not found by filtering either.
    assert.deepEqual(listedTo((await browser.get('/dashboard/inbox?to=5899')).body), []);
    // Wildcards are not digits: they filter nothing away and match nothing extra.
    assert.equal(listedTo((await browser.get('/dashboard/inbox?to=%25_')).body).length, 4);
  });

  test('message bodies are escaped: a brand name with HTML characters shows as text', async () => {
    const res = await client(t.app, ws.key).send({
      phone: '+61412345805',
      channel: 'sms',
      brand_name: 'A&B <Co>',
    });
    assert.equal(res.statusCode, 201, res.body);
    const page = await browser.get('/dashboard/inbox');
    assert.match(page.body, /<p class="message-body">A&amp;B &lt;Co&gt;: do not share this code/);
    assert.doesNotMatch(page.body, /<Co>/);
    const fragment = await browser.get('/dashboard/inbox/messages');
    assert.match(fragment.body, /A&amp;B &lt;Co&gt;/);
    assert.doesNotMatch(fragment.body, /<Co>/);
  });

  test('pages of 50, newest first: Older and Newest links, the filter kept, only the newest page refreshing', async () => {
    const paged = await seedWorkspace(t.services, { name: 'Paged' });
    const pagedBrowser = await signedIn(t.app, t.services, { workspaceIds: [paged.workspaceId] });
    const api = client(t.app, paged.key);
    const sent: string[] = [];
    for (let i = 0; i < 120; i++) {
      const phone = `+614123${String(50000 + i)}`;
      assert.equal((await api.send({ phone, channel: 'sms' })).statusCode, 201);
      sent.unshift(phone);
      clock.advance(10);
    }
    const olderLink = (html: string) =>
      /<a href="([^"]+)" rel="next">Older/.exec(html)?.[1]?.replaceAll('&amp;', '&');

    const first = await pagedBrowser.get('/dashboard/inbox');
    assert.deepEqual(listedTo(first.body), sent.slice(0, 50));
    assert.match(first.body, /data-refresh=/);
    assert.doesNotMatch(first.body, /« Newest/);
    const second = await pagedBrowser.get(String(olderLink(first.body)));
    assert.deepEqual(listedTo(second.body), sent.slice(50, 100));
    assert.doesNotMatch(second.body, /data-refresh=/, 'an older page does not refresh itself');
    assert.match(second.body, /href="\/dashboard\/inbox">« Newest/);
    const third = await pagedBrowser.get(String(olderLink(second.body)));
    assert.deepEqual(listedTo(third.body), sent.slice(100));
    assert.equal(olderLink(third.body), undefined, 'the last page has no Older link');

    // The filter rides along: 10 of the numbers end in 5005x… only those, paged the same way.
    const filtered = await pagedBrowser.get('/dashboard/inbox?to=41235010');
    assert.deepEqual(
      listedTo(filtered.body),
      sent.filter((p) => p.includes('41235010')),
    );
    assert.equal(olderLink(filtered.body), undefined);

    // The refreshed fragment carries the pager too.
    const fragment = await pagedBrowser.get('/dashboard/inbox/messages');
    assert.ok(olderLink(fragment.body)?.startsWith('/dashboard/inbox?before='));

    // A cursor that is not a whole number shows the newest page, never an error.
    for (const before of ['abc', '-1', '1.5', '1e5', '99999999999999999999', '', '%E2%80%8B']) {
      const res = await pagedBrowser.get(`/dashboard/inbox?before=${before}`);
      assert.equal(res.statusCode, 200, before);
      assert.deepEqual(listedTo(res.body), sent.slice(0, 50), before);
    }
    // A cursor past the oldest message: an empty older page that links back.
    const none = await pagedBrowser.get('/dashboard/inbox?before=1');
    assert.match(none.body, /No older messages/);
    assert.match(none.body, /« Newest/);
  });
});
