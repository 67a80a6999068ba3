// Dashboard issue item 4: the verifications log (newest first; filters by phone, status, channel and date;
// masked numbers; pages of 50) and the detail view (fields, delivery diagnostics, timeline, the "code never
// arrived" checklist); and item 8 for these pages: only the session's workspace, escaped output.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LATE_FAILURE_DELAY_MS } from '../../src/delivery/dev-provider.js';
import { DELIVERY_ERROR_CODES } from '../../src/delivery/error-codes.js';
import { insertVerification } from '../../src/verification/repository.js';
import type { Verification } from '../helpers/api-types.js';
import { type Client, client, codeFor, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';
import { sendOk } from '../helpers/verification.js';

const LOG = '/dashboard/verifications';
const DAY1 = Date.parse('2026-11-20T10:00:00.000Z');
const DAY2 = Date.parse('2026-11-21T10:00:00.000Z');

/** The verification ids a log page lists, in order. */
function listedIds(html: string): string[] {
  return [...html.matchAll(/href="\/dashboard\/verifications\/(ver_[0-9A-Za-z]+)"/g)].map(
    (m) => m[1] as string,
  );
}

/** The href of the page's "Older" link, as a browser would follow it. */
function olderHref(html: string): string | undefined {
  return /<a href="([^"]+)" rel="next">/.exec(html)?.[1]?.replaceAll('&amp;', '&');
}

describe('dashboard: verifications log and detail', () => {
  const clock = fakeClock(DAY1);
  let t: TestApp;
  let api: Client;
  let browser: DashboardClient;
  let otherApi: Client;
  const v: Record<string, Verification> = {};

  before(async () => {
    t = await createTestApp({ clock });
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    api = client(t.app, ws.key);
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
    const other = await seedWorkspace(t.services, {
      name: 'Other Co',
      numbers: [{ number: '+61491570157' }],
    });
    otherApi = client(t.app, other.key);

    // Day 1: a voice code, verified.
    v.verified = await sendOk(api, { phone: '+61412345101' });
    await api.check({ verification_id: v.verified.id, code: await codeFor(t.services, '+61412345101') });
    clock.advance(1000);
    // Day 2: an SMS code still pending, a rejected voice code, a canceled SMS code.
    clock.set(DAY2);
    v.pending = await sendOk(api, { phone: '+61412345202', channel: 'sms' });
    clock.advance(1000);
    v.rejected = await sendOk(api, { phone: '+61412340999' });
    clock.advance(1000);
    v.canceled = await sendOk(api, { phone: '+61412345303', channel: 'sms' });
    await api.cancel(v.canceled.id);
    clock.advance(1000);
    v.foreign = await sendOk(otherApi, { phone: '+61412345404' });
  });
  after(() => t.close());

  test('the log lists the workspace verifications newest first, each linking to its page', async () => {
    const res = await browser.get(LOG);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(listedIds(res.body), [v.canceled?.id, v.rejected?.id, v.pending?.id, v.verified?.id]);
    assert.doesNotMatch(res.body, new RegExp(String(v.foreign?.id)));
    assert.match(res.body, /<span class="badge badge-undelivered">undelivered<\/span>/);
    assert.match(res.body, /<time datetime="2026-11-21T10:00:00.000Z">2026-11-21 10:00:00<\/time>/);
  });

  test('numbers are masked in the list: country code, first digit and last three', async () => {
    const res = await browser.get(LOG);
    assert.match(res.body, /\+61 4•• ••• 101/);
    assert.match(res.body, /\+61 4•• ••• 999/);
    for (const full of ['+61412345101', '412345101', '412 345 101', '+61 412 345 101']) {
      assert.equal(res.body.includes(full), false, `${full} is not shown in full`);
    }
  });

  test('the phone filter takes E.164, national digits or part of the digits', async () => {
    for (const phone of ['+61412345202', '0412 345 202', '5202', '+61 412-345-202']) {
      const res = await browser.get(`${LOG}?phone=${encodeURIComponent(phone)}`);
      assert.deepEqual(listedIds(res.body), [v.pending?.id], phone);
    }
    const prefix = await browser.get(`${LOG}?phone=${encodeURIComponent('+61412345')}`);
    assert.deepEqual(listedIds(prefix.body), [v.canceled?.id, v.pending?.id, v.verified?.id]);
    const none = await browser.get(`${LOG}?phone=${encodeURIComponent('+64')}`);
    assert.deepEqual(listedIds(none.body), []);
    assert.match(none.body, /No verifications match these filters/);
    // The form shows what was applied.
    assert.match(none.body, /name="phone"[^>]*value="\+64"/);
  });

  test('the status, channel and date filters work alone and together', async () => {
    const ids = async (query: string) => listedIds((await browser.get(`${LOG}?${query}`)).body);
    assert.deepEqual(await ids('status=undelivered'), [v.rejected?.id]);
    assert.deepEqual(await ids('status=verified'), [v.verified?.id]);
    assert.deepEqual(await ids('status=canceled'), [v.canceled?.id]);
    assert.deepEqual(await ids('channel=sms'), [v.canceled?.id, v.pending?.id]);
    assert.deepEqual(await ids('channel=voice'), [v.rejected?.id, v.verified?.id]);
    assert.deepEqual(await ids('from=2026-11-21'), [v.canceled?.id, v.rejected?.id, v.pending?.id]);
    assert.deepEqual(await ids('to=2026-11-20'), [v.verified?.id]);
    assert.deepEqual(await ids('from=2026-11-20&to=2026-11-20'), [v.verified?.id]);
    assert.deepEqual(await ids('from=2026-11-22'), []);
    assert.deepEqual(await ids('channel=sms&status=pending&from=2026-11-21&to=2026-11-21'), [v.pending?.id]);
    assert.deepEqual(await ids('channel=voice&phone=0999'), [v.rejected?.id]);
    // Values that mean nothing are ignored (and not shown back as applied).
    const all = await browser.get(`${LOG}?status=bogus&channel=fax&from=2026-02-30`);
    assert.equal(listedIds(all.body).length, 4);
    assert.doesNotMatch(all.body, /<option value="\w+" selected="">/);
    assert.doesNotMatch(all.body, /value="2026-02-30"/);
    const selected = await browser.get(`${LOG}?status=canceled&channel=sms`);
    assert.match(selected.body, /<option value="canceled" selected="">canceled<\/option>/);
    assert.match(selected.body, /<option value="sms" selected="">SMS<\/option>/);
  });

  test('a pending code whose time ran out shows (and filters) as expired', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Timing' });
    const timing = client(t.app, ws.key);
    const reader = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
    const due = await sendOk(timing, { phone: '+61412345505', ttl_seconds: 60 });
    clock.set(Date.parse(due.expires_at));
    const list = await reader.get(LOG);
    assert.match(list.body, /badge-expired">expired</);
    assert.deepEqual(listedIds((await reader.get(`${LOG}?status=expired`)).body), [due.id]);
    assert.deepEqual(listedIds((await reader.get(`${LOG}?status=pending`)).body), []);
    // Opening it persists the expiry, as every read does, and the timeline shows it.
    const detail = await reader.get(`${LOG}/${due.id}`);
    assert.match(detail.body, /Expired: its time ran out at/);
    assert.match(detail.body, /The code expired 1 min after it was sent, with no attempt/);
    const stored = await t.services.verifications.inspect(ws.workspaceId, due.id);
    assert.equal(stored.verification.status, 'expired');
    clock.set(DAY2 + 10_000);
  });

  test('the log comes in pages of 50 with an "Older" link that keeps the filters', async () => {
    const ws = await seedWorkspace(t.services, { name: 'Busy' });
    const reader = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
    const ids: string[] = [];
    for (let i = 0; i < 56; i++) {
      // Rows written directly: the send limits are not what this test is about. Two share a creation time.
      const id = `ver_page${String(i).padStart(20, '0')}`;
      ids.push(id);
      await insertVerification(t.store.db, {
        id,
        workspace_id: ws.workspaceId,
        phone: `+614123460${String(i).padStart(2, '0')}`,
        country: 'AU',
        channel: i === 55 ? 'sms' : 'voice',
        status: 'verified',
        code_hash: 'x',
        code_length: 6,
        attempts: 1,
        max_attempts: 5,
        brand_name: 'Busy',
        metadata: '{}',
        expires_at: DAY1 + i * 1000 + 300_000,
        verified_at: DAY1 + i * 1000 + 1,
        created_at: DAY1 + Math.min(i, 54) * 1000,
        updated_at: DAY1,
        delivery_ok: 1,
        delivery_provider: 'development',
        provider_id: null,
        from_number: '+61491570156',
        error_code: null,
        error_message: null,
        seq: 1,
        mode: 'live',
      });
    }
    // Newest first; rows of one creation time by id, descending.
    const newestFirst = [ids[55], ids[54], ...ids.slice(0, 54).reverse()];
    const first = await reader.get(LOG);
    assert.deepEqual(listedIds(first.body), newestFirst.slice(0, 50));
    const older = olderHref(first.body);
    assert.ok(older, 'an Older link');
    const second = await reader.get(older);
    assert.deepEqual(listedIds(second.body), newestFirst.slice(50));
    assert.equal(olderHref(second.body), undefined, 'the last page has no Older link');
    assert.match(second.body, /« Newest/);

    const voice = await reader.get(`${LOG}?channel=voice`);
    assert.deepEqual(listedIds(voice.body), newestFirst.slice(1, 51));
    const olderVoice = olderHref(voice.body);
    assert.match(String(olderVoice), /channel=voice/);
    assert.deepEqual(listedIds((await reader.get(String(olderVoice))).body), newestFirst.slice(51));
  });

  test('the detail page shows the fields, the full number, the delivery diagnostics and the timeline', async () => {
    const res = await browser.get(`${LOG}/${v.rejected?.id}`);
    assert.equal(res.statusCode, 200);
    const body = res.body;
    assert.match(body, /\+61 412 340 999/);
    assert.match(body, /<dd>\+61412340999 \(AU\)<\/dd>/);
    assert.match(body, /<span class="badge badge-undelivered">undelivered<\/span>/);
    assert.match(body, /<dd>0 of 5<\/dd>/);
    assert.match(body, /<code>destination_rejected<\/code>/);
    assert.ok(body.includes(DELIVERY_ERROR_CODES.destination_rejected.replace(/'/g, '&#39;')));
    assert.ok(body.includes(String(v.rejected?.delivery.error_message)));
    assert.match(body, /<dt>Handed over<\/dt><dd>No<\/dd>/);
    assert.match(body, /<dt>Provider<\/dt><dd>development<\/dd>/);
    const timeline = /<ol class="timeline">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? '';
    assert.match(timeline, /Voice call code created for \+61 412 340 999, from \+61491570156/);
    assert.match(timeline, /Rejected at hand-over: destination_rejected/);
    assert.ok(timeline.indexOf('created for') < timeline.indexOf('Rejected at hand-over'));
    assert.match(timeline, /<time datetime="2026-11-21T10:00:01.000Z">2026-11-21 10:00:01 UTC<\/time>/);
    assert.match(body, /If the user says the code never arrived/);
    assert.match(body, /Nothing was sent: the carrier refused the number at hand-over/);
  });

  test('the checklist follows the data: pending, late failure, superseded, canceled, verified', async () => {
    const pending = (await browser.get(`${LOG}/${v.pending?.id}`)).body;
    assert.match(pending, /Handed over and no failure reported/);
    assert.match(pending, /try a voice call/);
    assert.match(pending, /<dt>Provider id<\/dt><dd><code>msg_/);

    const late = await sendOk(api, { phone: '+61412340998', channel: 'sms' });
    clock.advance(LATE_FAILURE_DELAY_MS);
    await t.services.devProvider.applyDueReports();
    const lateBody = (await browser.get(`${LOG}/${late.id}`)).body;
    assert.match(lateBody, /The carrier reported that delivery failed: delivery_failed/);
    assert.match(lateBody, /then reported it did not reach the phone/);
    assert.ok(lateBody.includes(DELIVERY_ERROR_CODES.delivery_failed));

    const old = await sendOk(api, { phone: '+61412345606' });
    const newer = await sendOk(api, { phone: '+61412345606' });
    const oldBody = (await browser.get(`${LOG}/${old.id}`)).body;
    assert.match(
      oldBody,
      new RegExp(`Superseded: a <a href="/dashboard/verifications/${newer.id}">newer code</a>`),
    );
    assert.match(oldBody, /The user may be typing the older code/);

    const canceled = (await browser.get(`${LOG}/${v.canceled?.id}`)).body;
    assert.match(canceled, /Canceled through the API \(key “test key”\)/);
    assert.match(canceled, /Your backend canceled this verification/);
  });

  test('a verified code says it arrived, with the attempts in the timeline', async () => {
    const phone = '+61412345707';
    const sent = await sendOk(api, { phone });
    const code = await codeFor(t.services, phone);
    await api.check({ verification_id: sent.id, code: code === '000000' ? '111111' : '000000' });
    await api.check({ verification_id: sent.id, code });
    const body = (await browser.get(`${LOG}/${sent.id}`)).body;
    assert.match(body, /The code arrived: the user entered it at/);
    assert.match(body, /Wrong code entered \(attempt 1 of 5\)/);
    assert.match(body, /Verified: the right code, on attempt 2 of 5/);
  });

  test('another workspace verification, or an unknown id, is a 404 page', async () => {
    for (const id of [v.foreign?.id, 'ver_000000000000000000000000', '<script>']) {
      const res = await browser.get(`${LOG}/${encodeURIComponent(String(id))}`);
      assert.equal(res.statusCode, 404, String(id));
      assert.match(res.body, /<h1>Not found<\/h1>/);
      assert.doesNotMatch(res.body, /\+61412345404|<script>/);
    }
  });

  test('metadata, brand names and typed filters are escaped', async () => {
    const evil = '<script>alert(1)</script>';
    const sent = await sendOk(api, {
      phone: '+61412345808',
      brand_name: '<b>Bold & Co</b>',
      metadata: { note: evil, '"><img src=x>': 'x' },
    });
    const body = (await browser.get(`${LOG}/${sent.id}`)).body;
    assert.equal(body.includes(evil), false);
    assert.equal(body.includes('<img src=x>'), false);
    assert.equal(body.includes('<b>Bold'), false);
    assert.ok(body.includes('&lt;b&gt;Bold &amp; Co&lt;/b&gt;'));
    assert.ok(body.includes('&quot;note&quot;: &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;'));
    // Metadata is shown as formatted JSON.
    assert.match(body, /<pre class="metadata"><code>\{\n {2}&quot;note&quot;/);

    const typed = await browser.get(`${LOG}?phone=${encodeURIComponent('"><script>x</script>')}`);
    assert.equal(typed.statusCode, 200);
    assert.equal(typed.body.includes('<script>x'), false);
    assert.match(typed.body, /value="&quot;&gt;&lt;script&gt;x&lt;\/script&gt;"/);
  });

  test('signed out, the pages send the visitor to sign in', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${LOG}/${v.pending?.id}` });
    assert.equal(res.statusCode, 302);
    assert.match(String(res.headers.location), /\/dashboard\/signin/);
  });
});
