// In a real browser, the inbox of the development provider: a code sent through /v1 while the page is open
// appears by itself (the page is not reloaded), newest first, and the code read from the page verifies.
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

const PATH = '/dashboard/inbox';
/** The page refreshes every 3 s: a message must show within a few refreshes. */
const APPEARS_WITHIN_MS = 10_000;

describe('browser: inbox', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let call: ApiCall;
  const messages = () => b.page.locator('.inbox-message');

  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
    call = apiCaller(b);
  });
  after(() => b?.close());

  test('an empty inbox explains where messages come from', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}${PATH}`);
    assert.equal(await page.getByRole('heading', { name: 'No messages yet' }).count(), 1);
    assert.equal(await messages().count(), 0);
  });

  test('an SMS sent while the page is open appears by itself, and its code verifies', async () => {
    const { page } = b;
    // A mark on the window: it survives a refresh of the list, not a reload of the page.
    await page.evaluate('window.stayed = true');
    const sent = await call('POST', '/v1/otp/send', { phone: '+61412345678', channel: 'sms' });
    assert.equal(sent.status, 201);

    const message = messages().filter({ hasText: '+61412345678' });
    await message.waitFor({ state: 'visible', timeout: APPEARS_WITHIN_MS });
    assert.equal(
      await page.evaluate('window.stayed === true'),
      true,
      'the list refreshed in place, without reloading the page',
    );
    assert.match(
      (await message.locator('.message-body').textContent()) ?? '',
      /^Acme: .*Your verification code is \d+$/,
    );
    const code = ((await message.locator('mark').textContent()) ?? '').trim();
    assert.match(code, /^\d{4,10}$/);
    assert.equal(await message.getByRole('link').textContent(), `Verification ${sent.body.id}`);

    const checked = await call('POST', '/v1/otp/check', { verification_id: sent.body.id, code });
    assert.equal(checked.status, 200);
    assert.equal(checked.body.verified, true);
  });

  test('a voice call sent next appears above it; the code it reads out (digit by digit) verifies too', async () => {
    const { page } = b;
    const sent = await call('POST', '/v1/otp/send', { phone: '+61412345999', channel: 'voice' });
    assert.equal(sent.status, 201);
    await messages().filter({ hasText: '+61412345999' }).waitFor({ timeout: APPEARS_WITHIN_MS });
    assert.equal(await messages().count(), 2);
    const newest = messages().first();
    assert.match((await newest.textContent()) ?? '', /\+61412345999/);
    assert.match((await newest.locator('.badge').textContent()) ?? '', /Voice call/);
    const spoken = (await newest.locator('mark').first().textContent()) ?? '';
    assert.match(spoken, /^\d(, \d)+$/, 'the call reads the code digit by digit');
    const checked = await call('POST', '/v1/otp/check', {
      verification_id: sent.body.id,
      code: spoken.replace(/\D/g, ''),
    });
    assert.equal(checked.body.verified, true);
    await screenshot(page, 'inbox');
  });

  test('the filter shows the messages to one number', async () => {
    const { page } = b;
    await page.getByLabel('Phone number').fill('0412 345 678');
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    assert.equal(await messages().count(), 1);
    assert.match((await messages().first().textContent()) ?? '', /\+61412345678/);
  });

  test('on a phone (390×844) the inbox does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${b.baseUrl}${PATH}`);
      assert.equal(await scrollsSideways(page), false, 'the inbox is wider than the phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
