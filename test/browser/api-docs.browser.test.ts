// In a real browser: the API reference (/docs) renders every operation under its Content-Security-Policy, with
// no violation reported and no request leaving the service's origin; and "Try it out" on send, with a real key and
// the body Swagger UI pre-fills from the document's example, sends a code (issue 15).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type BrowserApp, browserSkip, openBrowserApp } from '../helpers/browser.js';
import { cliJson } from '../helpers/process.js';

/** A port free at the moment: the server listens on it, so that PUBLIC_URL (where "Try it out" sends) is its own. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('browser: the API reference at /docs', { skip: browserSkip() }, () => {
  let b: BrowserApp;
  let key: string;
  before(async () => {
    const port = await freePort();
    b = await openBrowserApp({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    // A workspace with a mobile number to send from, and a key of it: what "Try it out" needs.
    const workspace = cliJson<{ id: string }>(['workspace', 'create', '--name', 'Docs Co'], b.env).id;
    cliJson(['number', 'add', '--workspace', workspace, '--number', '+61491570157'], b.env);
    key = cliJson<{ key: string }>(['key', 'create', '--workspace', workspace, '--name', 'docs'], b.env).key;
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

  test('"Try it out" on send: authorized with a real key, the pre-filled example body sends a code (201)', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}/docs`);
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    // The bearer scheme's section of the dialog: its value, then its own Authorize button.
    const bearer = page
      .locator('.auth-container')
      .filter({ has: page.locator('code', { hasText: /^bearer$/ }) });
    await bearer.locator('#auth-bearer-value').fill(key);
    await bearer.getByRole('button', { name: 'Apply credentials' }).click();
    // Authorized, the section says so (and offers to log out); the dialog's Close ends it.
    await bearer.getByText('Authorized', { exact: true }).waitFor();
    await page.locator('.modal-ux-content .btn-done').first().click();

    const operation = page.locator('#operations-Verifications-sendVerification');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const body = operation.locator('textarea.body-param__text');
    const prefilled = JSON.parse(await body.inputValue()) as Record<string, unknown>;
    assert.deepEqual(prefilled, { phone: '+61491570156', channel: 'sms' });

    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${b.baseUrl}/v1/otp/send` && r.request().method() === 'POST'),
      operation.getByRole('button', { name: 'Execute' }).click(),
    ]);
    assert.equal(answer.status(), 201, await answer.text());
    assert.equal(answer.request().headers().authorization, `Bearer ${key}`);
    const verification = (await answer.json()) as {
      id: string;
      status: string;
      phone: string;
      channel: string;
    };
    assert.match(verification.id, /^ver_/);
    assert.deepEqual(
      [verification.status, verification.phone, verification.channel],
      ['pending', '+61491570156', 'sms'],
    );
    // Swagger UI shows the answer it got.
    await operation.locator('.live-responses-table .response-col_status', { hasText: '201' }).waitFor();
  });

  test("a problem's type opens its code's section of the errors reference, styled, under the same CSP", async () => {
    const { page } = b;
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const problem = (await (await fetch(`${b.baseUrl}/v1/ping`)).json()) as { type: string };
    assert.equal(problem.type, `${b.baseUrl}/docs/errors#missing_api_key`);
    const res = await page.goto(problem.type);
    assert.match(String((await res?.allHeaders())?.['content-security-policy']), /frame-ancestors 'none'/);
    const section = page.locator('section#missing_api_key');
    assert.match(await section.innerText(), /401 Missing API key/);
    assert.ok(await section.isVisible());
    // Pico's stylesheet applies (its container is centred, not the browser's full-width default).
    const margin = await page.evaluate<string>(
      "getComputedStyle(document.querySelector('main.container')).marginLeft",
    );
    assert.notEqual(margin, '0px');
    await page.waitForLoadState('networkidle');
    assert.deepEqual(violations, []);
  });
});
