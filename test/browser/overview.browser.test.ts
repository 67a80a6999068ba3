// In a real browser, the overview: the empty state of a fresh workspace, then, with codes sent through /v1, the
// tiles and the three charts (each an image with a title), the day/week switch, and the page on a phone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type ApiCall,
  andWait,
  apiCaller,
  browserSkip,
  openSignedInApp,
  type SignedInApp,
  screenshot,
  scrollsSideways,
} from '../helpers/browser.js';
import { cliJson } from '../helpers/process.js';

const PATH = '/dashboard';

describe('browser: overview', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let call: ApiCall;

  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
    call = apiCaller(b);
  });
  after(() => b?.close());

  /** The tiles as { label: value }. */
  async function tiles(): Promise<Record<string, string>> {
    const pairs = await b.page
      .locator('.overview-stats .stat')
      .evaluateAll((stats) =>
        stats.map((s) => [
          s.querySelector('.label')?.textContent?.trim() ?? '',
          s.querySelector('.value')?.textContent?.trim() ?? '',
        ]),
      );
    return Object.fromEntries(pairs);
  }

  /** The titles of the charts: every svg[role=img] with its <title>. */
  const chartTitles = () =>
    b.page
      .locator('svg[role="img"]')
      .evaluateAll((svgs) => svgs.map((svg) => svg.querySelector(':scope > title')?.textContent ?? ''));

  test('a fresh workspace shows the empty state with the first steps, and no charts', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}${PATH}`);
    assert.equal(
      (await page.getByRole('heading', { level: 2 }).first().textContent())?.trim(),
      'No codes sent in the last 24 hours',
    );
    assert.equal(await page.getByRole('link', { name: 'create an API key' }).count(), 1);
    assert.equal(await page.locator('svg[role="img"]').count(), 0);
    await screenshot(page, 'overview-empty');
  });

  test('with codes sent, the tiles count them and three charts with titles appear', async () => {
    const { page } = b;
    // Four AU codes (one verified, one rejected at hand-over) and one to New Zealand.
    const first = await call('POST', '/v1/otp/send', { phone: '+61412345101', channel: 'sms' });
    const [message] = cliJson<{ body: string }[]>(['outbox', '--to', '+61412345101', '--limit', '1'], b.env);
    const code = /(\d+)\s*$/.exec(message?.body ?? '')?.[1];
    const checked = await call('POST', '/v1/otp/check', { verification_id: first.body.id, code });
    assert.equal(checked.body.verified, true);
    for (const [phone, channel] of [
      ['+61412345202', 'voice'],
      ['+61412340999', 'voice'],
      ['+61412345303', 'sms'],
      ['+64211234567', 'sms'],
    ]) {
      assert.equal((await call('POST', '/v1/otp/send', { phone, channel })).status, 201);
    }

    await page.goto(`${b.baseUrl}${PATH}`);
    const t = await tiles();
    assert.equal(t['Codes sent'], '5');
    assert.equal(t.Verified, '1');
    assert.equal(t['Conversion rate'], '20%');
    assert.equal(t['Delivery failures'], '1');
    assert.deepEqual(await chartTitles(), [
      'Codes sent per hour (UTC)',
      'By channel',
      'By destination country',
    ]);
    const countries = (await page.locator('#chart-countries svg desc').textContent()) ?? '';
    assert.match(countries, /AU: 4 sent/);
    assert.match(countries, /NZ: 1 sent/);

    // The numbers behind a chart open on request.
    await page.locator('#chart-channels summary').click();
    const table = (await page.locator('#chart-channels table').innerText()).replace(/\s+/g, ' ');
    assert.match(table, /SMS 1 0 0 0 0 2 3/);
    assert.match(table, /Voice call 0 1 0 0 0 1 2/);
    await page.locator('#chart-channels summary').click();
    await screenshot(page, 'overview');
  });

  test('the period switch shows the last 7 days, per day, and back', async () => {
    const { page } = b;
    const current = () => page.locator('.period-switch [aria-current="page"]').textContent();
    assert.equal(await current(), 'Last 24 hours');
    await andWait(page, () => page.getByRole('link', { name: 'Last 7 days' }).click());
    assert.equal(new URL(page.url()).searchParams.get('period'), 'week');
    assert.equal(await current(), 'Last 7 days');
    assert.equal((await chartTitles())[0], 'Codes sent per day (UTC)');
    assert.equal((await tiles())['Codes sent'], '5');
    await andWait(page, () => page.getByRole('link', { name: 'Last 24 hours' }).click());
    assert.equal(await current(), 'Last 24 hours');
    assert.equal((await chartTitles())[0], 'Codes sent per hour (UTC)');
  });

  test('on a phone (390×844) the overview does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${b.baseUrl}${PATH}`);
      assert.equal(await scrollsSideways(page), false, 'the overview is wider than the phone');
      await screenshot(page, 'overview-mobile');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
