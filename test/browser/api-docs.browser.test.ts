// In a real browser: the API reference (/docs) renders every operation under its Content-Security-Policy, with
// no violation reported and no request leaving the service's origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type BrowserApp, browserSkip, openBrowserApp } from '../helpers/browser.js';

describe('browser: the API reference at /docs', { skip: browserSkip() }, () => {
  let b: BrowserApp;
  before(async () => {
    b = await openBrowserApp();
  });
  after(() => b?.close());

  test('Swagger UI renders the operations; the CSP blocks nothing it needs, and nothing goes elsewhere', async () => {
    const { page } = b;
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(b.baseUrl) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    // Violations are also reported to the page: pass them to the console (a string: this file has no DOM types).
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
      console.error('Refused to load (CSP ' + e.violatedDirective + '): ' + e.blockedURI));`);

    const res = await page.goto(`${b.baseUrl}/docs`);
    assert.ok(res);
    assert.match(String((await res.allHeaders())['content-security-policy']), /frame-ancestors 'none'/);
    await page.getByText('/v1/otp/send').first().waitFor();
    for (const path of ['/v1/ping', '/v1/otp/check', '/v1/otp/{id}', '/v1/otp/{id}/cancel']) {
      assert.ok(await page.getByText(path, { exact: true }).first().isVisible(), path);
    }
    // Open an operation: its parameters and schemas render too (styles, icons, syntax highlighting).
    await page.getByText('/v1/otp/send').first().click();
    await page.getByRole('button', { name: 'Try it out' }).first().waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(violations, []);
    assert.deepEqual(foreign, []);
  });
});
