// Dashboard issue item 2: Settings > Security > API keys. The list, creation with the key shown exactly once,
// revocation (effective on the next /v1 request), the 25-active-key limit, the rotation steps; and the security
// rules of item 8: CSRF on every change, only the session's workspace, escaped output.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { MAX_ACTIVE_KEYS } from '../../src/keys/service.js';
import { client, createTestApp, type SeededWorkspace, seedWorkspace, type TestApp } from '../helpers/app.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

const PAGE = '/dashboard/settings/security/api-keys';

/** The key shown in the page's read-only field, if any. */
function shownKey(html: string): string | undefined {
  return /<input[^>]*id="new-api-key"[^>]*value="([^"]+)"/.exec(html)?.[1];
}

describe('dashboard: API keys', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let browser: DashboardClient;

  before(async () => {
    t = await createTestApp();
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    other = await seedWorkspace(t.services, { name: 'Other Co' });
    await t.services.keys.createKey(
      { workspaceId: other.workspaceId, name: 'other-workspace-secret-name' },
      OPERATOR,
    );
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  const keysOf = (workspaceId: string) => t.services.keys.listKeys(workspaceId);

  test('the page lists the workspace keys with their details, the create form and the rotation steps', async () => {
    const [seeded] = await keysOf(ws.workspaceId);
    assert.ok(seeded);
    const res = await browser.get(PAGE);
    assert.equal(res.statusCode, 200);
    for (const text of ['test key', `${seeded.prefix}…`, 'otp', 'badge badge-active', 'Create API key']) {
      assert.ok(res.body.includes(text), `page shows ${text}`);
    }
    for (const heading of ['Name', 'Prefix', 'Scopes', 'Created', 'Last used', 'Expires', 'Status']) {
      assert.match(res.body, new RegExp(`<th scope="col">${heading}</th>`));
    }
    assert.match(res.body, /Rotating a key/);
    assert.match(res.body, /Create the new key[\s\S]*Deploy it[\s\S]*Revoke the old key/);
    assert.match(res.body, /<input type="checkbox" name="scopes" value="otp" checked/);
    for (const days of ['7', '30', '90', '365'])
      assert.match(res.body, new RegExp(`<option value="${days}"`));
    assert.equal(shownKey(res.body), undefined, 'no key is shown on a plain visit');
  });

  test("another workspace's keys never appear", async () => {
    const [otherKey] = await keysOf(other.workspaceId);
    const res = await browser.get(PAGE);
    assert.doesNotMatch(res.body, /other-workspace-secret-name/);
    assert.ok(otherKey && !res.body.includes(otherKey.prefix));
  });

  test('a created key is shown once, with a copy button and a warning, and works against /v1', async () => {
    const res = await browser.post(PAGE, { name: 'Deploy bot', scopes: ['otp'], expires: '30' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.location, undefined, 'rendered, not redirected');
    const key = shownKey(res.body) ?? '';
    assert.match(key, /^pv_live_/, 'the key is in the read-only field');
    assert.match(res.body, /<input[^>]*id="new-api-key"[^>]*readonly/);
    assert.match(res.body, /<button type="button" data-copy="#new-api-key">/);
    assert.match(res.body, /cannot be shown again/);
    // Never in a cookie (flash or other).
    for (const cookie of res.cookies) {
      assert.ok(!decodeURIComponent(cookie.value).includes(key), `cookie ${cookie.name} holds no key`);
      assert.ok(!Buffer.from(cookie.value, 'base64url').toString().includes(key));
    }

    const ping = await client(t.app, key).ping();
    assert.equal(ping.statusCode, 200);

    const again = await browser.get(PAGE);
    assert.equal(again.statusCode, 200);
    assert.ok(!again.body.includes(key), 'a later visit does not show the key');
    assert.equal(shownKey(again.body), undefined);
    assert.match(again.body, /Deploy bot/);

    const created = (await keysOf(ws.workspaceId)).find((k) => k.name === 'Deploy bot');
    assert.ok(created?.expires_at);
    const days = (Date.parse(created.expires_at) - Date.parse(created.created_at)) / 86_400_000;
    assert.equal(days, 30);
  });

  test('a key without expiry says never; a form error re-shows the form and creates nothing', async () => {
    const ok = await browser.post(PAGE, { name: 'No expiry', scopes: ['otp'], expires: '' });
    assert.equal(ok.statusCode, 200);
    assert.equal((await keysOf(ws.workspaceId)).find((k) => k.name === 'No expiry')?.expires_at, null);
    const listed = await browser.get(PAGE);
    const row = /No expiry<\/td>((?:(?!<\/tr>)[\s\S])*)<\/tr>/.exec(listed.body)?.[1] ?? '';
    assert.match(
      row,
      /<td data-label="Expires"><span class="muted">never<\/span><\/td>\s*<td data-label="Status"><span class="badge badge-active">/,
    );

    const before = (await keysOf(ws.workspaceId)).length;
    const bad = await browser.post(PAGE, { name: '   ', scopes: ['otp'], expires: '7' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /name: must be 1 to 100 characters/);
    assert.equal(shownKey(bad.body), undefined);
    const badExpiry = await browser.post(PAGE, { name: 'Odd', scopes: ['otp'], expires: '5' });
    assert.equal(badExpiry.statusCode, 400);
    assert.match(badExpiry.body, /value="Odd"/, 'what was typed is shown again');
    assert.equal((await keysOf(ws.workspaceId)).length, before);
  });

  test('revoking asks for confirmation and takes effect on the next /v1 request', async () => {
    const made = await t.services.keys.createKey(
      { workspaceId: ws.workspaceId, name: 'To revoke' },
      OPERATOR,
    );
    assert.equal((await client(t.app, made.key).ping()).statusCode, 200);

    const page = await browser.get(PAGE);
    const action = `${PAGE}/${made.id}/revoke`;
    assert.match(
      page.body,
      new RegExp(`<form method="post" action="${action}" class="inline-form" data-confirm="`),
    );

    const res = await browser.post(action, {});
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, PAGE);
    assert.equal((await client(t.app, made.key).ping()).statusCode, 401);

    const after = await browser.get(PAGE);
    assert.match(after.body, /API key “To revoke” revoked/);
    const row = /To revoke<\/td>(?:(?!<\/tr>)[\s\S])*badge badge-revoked/;
    assert.match(after.body, row);
  });

  test("another workspace's key cannot be revoked: 404, nothing changes", async () => {
    const res = await browser.post(`${PAGE}/${other.keyId}/revoke`, {});
    assert.equal(res.statusCode, 404);
    assert.equal((await client(t.app, other.key).ping()).statusCode, 200);
    const unknown = await browser.post(`${PAGE}/key_doesnotexist/revoke`, {});
    assert.equal(unknown.statusCode, 404);
  });

  test('POSTs without the CSRF token are refused and change nothing', async () => {
    const before = (await keysOf(ws.workspaceId)).length;
    const create = await browser.post(PAGE, { name: 'Forged', scopes: ['otp'] }, { csrf: null });
    assert.equal(create.statusCode, 403);
    assert.equal(shownKey(create.body), undefined);
    assert.equal((await keysOf(ws.workspaceId)).length, before);

    const revoke = await browser.post(`${PAGE}/${ws.keyId}/revoke`, {}, { csrf: null });
    assert.equal(revoke.statusCode, 403);
    assert.equal((await client(t.app, ws.key).ping()).statusCode, 200);
  });

  test('a key name is escaped wherever it appears', async () => {
    const name = '<script>alert(1)</script>';
    const created = await browser.post(PAGE, { name, scopes: ['otp'], expires: '' });
    assert.equal(created.statusCode, 200);
    const listed = await browser.get(PAGE);
    for (const res of [created, listed]) {
      assert.ok(!res.body.includes(name), 'never raw');
      assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'shown escaped');
    }
  });

  test(`at ${MAX_ACTIVE_KEYS} active keys the limit is explained and the form disabled`, async () => {
    const full = await seedWorkspace(t.services, { name: 'Full' });
    for (let i = 1; i < MAX_ACTIVE_KEYS; i++) {
      await t.services.keys.createKey({ workspaceId: full.workspaceId, name: `key ${i}` }, OPERATOR);
    }
    const user = await signedIn(t.app, t.services, { workspaceIds: [full.workspaceId] });
    const page = await user.get(PAGE);
    assert.match(page.body, /This workspace has 25 active keys, the most it may hold\. Revoke a key/);
    assert.match(page.body, /<fieldset disabled/);

    const refused = await user.post(PAGE, { name: 'One too many', scopes: ['otp'] });
    assert.equal(refused.statusCode, 409);
    assert.equal(shownKey(refused.body), undefined);
    assert.equal((await keysOf(full.workspaceId)).length, MAX_ACTIVE_KEYS);

    // Revoking one frees a place: the form is enabled again.
    await user.post(`${PAGE}/${full.keyId}/revoke`, {});
    const freed = await user.get(PAGE);
    assert.doesNotMatch(freed.body, /<fieldset disabled/);
    assert.doesNotMatch(freed.body, /the most it may hold/);
  });

  test('signed out, the page sends you to sign in', async () => {
    const res = await t.app.inject({ method: 'GET', url: PAGE });
    assert.equal(res.statusCode, 302);
    assert.match(String(res.headers.location), /^\/dashboard\/signin/);
  });
});
