// Issue 11 item 5: the API reference (/docs, Swagger UI) sends the dashboard's security headers, adjusted for
// what Swagger UI loads: a Content-Security-Policy with scripts from this origin only (no inline or eval), no
// framing (frame-ancestors 'none' and X-Frame-Options), nosniff and a same-origin referrer policy. The browser
// test (test/browser/api-docs.browser.test.ts) shows Swagger UI works under it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** The CSP as a map of directive -> sources. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...sources]) => [name, sources]),
  );
}

describe('/docs security headers', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  for (const url of [
    '/docs',
    '/docs/',
    '/docs/static/index.html',
    '/docs/static/swagger-ui-bundle.js',
    '/docs/static/swagger-initializer.js',
    '/docs/json',
    '/docs/errors',
  ]) {
    test(`GET ${url}: CSP without inline or eval, no framing, nosniff, same-origin referrer`, async () => {
      const res = await t.app.inject({ method: 'GET', url });
      assert.ok(res.statusCode < 500, String(res.statusCode));
      const csp = directives(String(res.headers['content-security-policy'] ?? ''));
      assert.deepEqual(csp.get('default-src'), ["'self'"], url);
      assert.deepEqual(csp.get('script-src'), ["'self'"], url);
      assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], url);
      assert.deepEqual(csp.get('object-src'), ["'none'"], url);
      assert.deepEqual(csp.get('base-uri'), ["'none'"], url);
      assert.deepEqual(csp.get('form-action'), ["'self'"], url);
      for (const [name, sources] of csp) {
        assert.ok(
          !sources.some((s) => /unsafe-(inline|eval)/.test(s)),
          `${url}: ${name} ${sources.join(' ')}`,
        );
      }
      // Swagger UI reads the document and sends "Try it out" requests to PUBLIC_URL: nowhere else.
      assert.deepEqual(csp.get('connect-src'), ["'self'", 'http://127.0.0.1'], url);
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN', url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['referrer-policy'], 'same-origin', url);
    });
  }

  test("an unknown address under /docs is the API's ordinary 404 problem, not a page", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/no-such-file' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  });

  test('the API itself is left as it was: no CSP on /v1 or /openapi.json', async () => {
    for (const url of ['/v1/ping', '/openapi.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.headers['content-security-policy'], undefined, url);
    }
  });
});
