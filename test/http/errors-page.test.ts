// Issue 15: a problem's `type` is the absolute URL of its code's section in the errors reference that the service
// serves at GET /docs/errors (one `id=<code>` section per code of the catalogue: status, title, meaning, what to
// do), built from the catalogue. Its security headers are the API reference's (test/http/api-docs.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERROR_REFERENCE } from '../../src/error-reference.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors.js';
import type { Problem } from '../helpers/api-types.js';
import { createTestApp, json, type TestApp } from '../helpers/app.js';

const PUBLIC_URL = 'https://verify.example.com';
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The HTML of the section with that id, up to its end. */
function sectionOf(page: string, id: string): string | undefined {
  return new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(page)?.[1];
}

describe('the errors reference at /docs/errors', () => {
  let t: TestApp;
  let page: string;

  before(async () => {
    t = await createTestApp({ publicUrl: PUBLIC_URL });
    const res = await t.app.inject({ method: 'GET', url: '/docs/errors' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    page = res.body;
  });
  after(() => t.close());

  test('one section per code of the catalogue, in its order, each with its status, title, meaning and remedy', () => {
    const ids = [...page.matchAll(/<section id="([a-z_]+)">/g)].map((m) => m[1]);
    assert.deepEqual(ids, CODES);
    for (const code of CODES) {
      const section = sectionOf(page, code);
      assert.ok(section, code);
      const { status, title } = ERROR_CATALOGUE[code];
      assert.match(section, new RegExp(`<strong>${status}</strong> ${title}`), code);
      // The reference's words, with their `code` spans as <code> (and nothing else of them taken as markup).
      const words = (text: string) =>
        text
          .replaceAll('&', '&amp;')
          .replaceAll('<', '&lt;')
          .replaceAll('>', '&gt;')
          .replaceAll('"', '&quot;')
          .replaceAll("'", '&#39;')
          .replace(/`([^`]+)`/g, '<code>$1</code>');
      assert.ok(section.includes(words(ERROR_REFERENCE[code].meaning)), `${code}: meaning`);
      assert.ok(section.includes(words(ERROR_REFERENCE[code].action)), `${code}: what to do`);
    }
  });

  test('text of the reference is escaped: `Bearer <key>` is shown, not parsed as a tag', () => {
    assert.ok(page.includes('<code>Bearer &lt;key&gt;</code>'));
    assert.equal(/<key>/.test(page), false);
  });

  test("a problem's type is the absolute URL of its code's section, under PUBLIC_URL", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/ping' });
    assert.equal(res.statusCode, 401);
    const problem = json<Problem>(res);
    assert.equal(problem.type, `${PUBLIC_URL}/docs/errors#missing_api_key`);
    const url = new URL(problem.type);
    const followed = await t.app.inject({ method: 'GET', url: url.pathname });
    assert.equal(followed.statusCode, 200);
    assert.ok(sectionOf(followed.body, url.hash.slice(1)), 'the fragment names a section');
  });

  test('the OpenAPI document names the page, and its Problem lists every code of the catalogue', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      info: { description: string };
      components: {
        schemas: { Problem: { properties: { code: { enum: string[] }; type: { format: string } } } };
      };
    };
    assert.ok(doc.info.description.includes(`${PUBLIC_URL}/docs/errors`));
    assert.deepEqual(doc.components.schemas.Problem.properties.code.enum, CODES);
    assert.equal(doc.components.schemas.Problem.properties.type.format, 'uri');
  });

  test('its stylesheet is served to anyone (no session)', async () => {
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page)?.[1];
    assert.ok(href);
    const res = await t.app.inject({ method: 'GET', url: href });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/css/);
  });
});
