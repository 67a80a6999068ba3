// In a real browser, the Fraud page: the pumping guard's settings (per range and per country) saved from the form
// and refused with the field's reason, a range's block listed with its refused sends and lifted by its button, and
// a phone's screen that does not scroll sideways.
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

const PATH = '/dashboard/fraud';

describe('browser: the Fraud page', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let call: ApiCall;

  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
    call = apiCaller(b);
  });
  after(() => b?.close());

  const settings = () =>
    cliJson<Record<string, unknown>>(['fraud', 'settings', '--workspace', b.workspaceId], b.env);

  test('the settings form shows the country fields; saved values apply, a bad one is refused by its field', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}${PATH}`);
    const sends = page.getByLabel('Conversion: finished codes judged per country');
    const percent = page.getByLabel('Block a country when fewer of them are verified than (percent; 0: off)');
    assert.equal(await sends.inputValue(), '200');
    assert.equal(await percent.inputValue(), '5');
    await sends.fill('400');
    await percent.fill('3');
    await page.getByLabel('Distinct numbers of one range before it is blocked').fill('1');
    await andWait(page, () => page.getByRole('button', { name: 'Save settings' }).click());
    assert.match(
      (await page.locator('main').innerText()).replace(/\s+/g, ' '),
      /A whole country is blocked when fewer than 3% of its last 400 finished codes were verified/,
    );
    const saved = settings();
    assert.equal(saved.country_conversion_sends, 400);
    assert.equal(saved.country_conversion_percent, 3);
    assert.equal(saved.range_limit, 1);

    // The browser's own checks are bypassed, as a hand-made request would: the server refuses by the field.
    await sends.evaluate((el) => el.removeAttribute('max'));
    await sends.fill('10001');
    await andWait(page, () => page.getByRole('button', { name: 'Save settings' }).click());
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /country_conversion_sends: must be a whole number from 10 to 10,000/,
    );
    assert.equal(settings().country_conversion_sends, 400);
    await screenshot(page, 'fraud-settings');
  });

  test('a block is listed with why and its refused sends, and lifted by its button', async () => {
    const { page } = b;
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+61412345101', channel: 'sms' })).status, 201);
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+61412345202' })).status, 403);
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+61412345303' })).status, 403);
    await page.goto(`${b.baseUrl}${PATH}`);
    const row = page.locator('table tbody tr').filter({ hasText: '+61412345xxx' });
    const text = (await row.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /Velocity: 2 numbers in the window/);
    assert.match(text, /active/);
    assert.equal((await row.locator('td[data-label="Refused sends"]').textContent())?.trim(), '2');
    await screenshot(page, 'fraud-blocks');
    await andWait(page, () => row.getByRole('button', { name: 'Lift +61412345' }).click());
    assert.match(
      (await page.locator('main').innerText()).replace(/\s+/g, ' '),
      /lifted by owner@example\.com/,
    );
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+61412345404' })).status, 201);
  });

  test('on a phone (390×844) the page does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${b.baseUrl}${PATH}`);
      assert.equal(await scrollsSideways(page), false);
      await screenshot(page, 'fraud-mobile');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
