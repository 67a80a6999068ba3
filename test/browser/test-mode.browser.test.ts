// In a real browser: the API key form's Mode switch makes a pv_test_ key that works, the key table marks it test,
// and the verifications log's "Test data" switch shows the test key's verification (and only it), then back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { andWait, browserSkip, openSignedInApp, type SignedInApp } from '../helpers/browser.js';
import { callServer } from '../helpers/cli-setup.js';

describe('browser: test mode', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let testKey = '';
  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
  });
  after(() => b?.close());

  test('the Mode switch makes a test key (pv_test_…) that works, listed as test', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}/dashboard/settings/security/api-keys`);
    await page.getByRole('textbox', { name: /^Name\b/ }).fill('E2E suite');
    assert.equal(await page.getByRole('radio', { name: /^Live\b/ }).isChecked(), true, 'live by default');
    await page.getByRole('radio', { name: /^Test\b/ }).check();
    await andWait(page, () => page.getByRole('button', { name: 'Create API key' }).click());
    testKey = await page.getByLabel('API key', { exact: true }).inputValue();
    assert.match(testKey, /^pv_test_[0-9A-Za-z]{38}$/);
    const row = page.getByRole('row').filter({ hasText: 'E2E suite' });
    assert.equal(await row.locator('.badge-mode-test').textContent(), 'test');
    assert.equal((await callServer(b.baseUrl, testKey, 'GET', '/v1/ping')).status, 200);
  });

  test('the log shows the test verification only with Test data on', async () => {
    const { page } = b;
    const sent = await callServer(b.baseUrl, testKey, 'POST', '/v1/otp/send', { phone: '+61412347701' });
    assert.equal(sent.status, 201);
    const id = String(sent.body.id);
    await page.goto(`${b.baseUrl}/dashboard/verifications`);
    assert.equal((await page.content()).includes(id), false, 'live data by default');
    const toggle = page.getByRole('switch');
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    await andWait(page, () => toggle.click());
    assert.match(page.url(), /[?&]mode=test\b/);
    assert.ok((await page.content()).includes(id), 'the test verification is listed');
    assert.equal(await page.getByRole('switch').getAttribute('aria-checked'), 'true');
    await andWait(page, () => page.getByRole('switch').click());
    assert.equal((await page.content()).includes(id), false, 'and live data again');
  });
});
