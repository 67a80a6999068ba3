// In a real browser, Settings > Security > API keys: a key created in the page is shown exactly once and works;
// revoking it (after the confirmation) stops it on the very next request; the 25-key limit is explained and
// closes the form; the form works with the keyboard alone; the page fits a phone without sideways scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  andWait,
  browserSkip,
  cliJsonAsync,
  openSignedInApp,
  type SignedInApp,
  screenshot,
  scrollsSideways,
} from '../helpers/browser.js';
import { callServer } from '../helpers/cli-setup.js';

const PATH = '/dashboard/settings/security/api-keys';
const LIMIT = 25;

describe('browser: API keys', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let created = '';
  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
  });
  after(() => b?.close());

  const open = () => b.page.goto(`${b.baseUrl}${PATH}`);
  const ping = (key: string) => callServer(b.baseUrl, key, 'GET', '/v1/ping');
  /** The table row of the key named `name`. */
  const rowOf = (name: string) => b.page.getByRole('row').filter({ hasText: name });
  /** The key's name field (its label holds a hint too, so the accessible name only starts with "Name"). */
  const nameField = () => b.page.getByRole('textbox', { name: /^Name\b/ });

  test('creating a key in the form shows it once, in a read-only field with a copy button, and it works', async () => {
    const { page } = b;
    await open();
    await nameField().fill('Production web app');
    await page.getByLabel('Expires').selectOption('90');
    await andWait(page, () => page.getByRole('button', { name: 'Create API key' }).click());
    const field = page.getByLabel('API key', { exact: true });
    created = await field.inputValue();
    assert.match(created, /^pv_live_[0-9A-Za-z]{38}$/);
    assert.equal(await field.getAttribute('readonly'), '', 'the key field is read-only');
    assert.ok(
      await page.getByRole('button', { name: 'Copy' }).isVisible(),
      'a copy button is next to the key',
    );
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /Copy this key now: it cannot be shown again\./,
    );
    assert.equal((await page.content()).split(created).length - 1, 1, 'the key appears exactly once');
    await screenshot(page, 'api-key-created');

    const res = await ping(created);
    assert.equal(res.status, 200);
    assert.equal(res.body.key_name, 'Production web app');
    assert.equal(res.body.workspace_id, b.workspaceId);
  });

  test('opened again, the page lists the key by its prefix but never shows the key itself', async () => {
    const { page } = b;
    await open();
    const html = await page.content();
    assert.ok(!html.includes(created), 'the key text is nowhere in the page');
    assert.ok(!html.includes(created.slice(8)), 'nor its random part');
    const row = rowOf('Production web app');
    assert.match((await row.textContent()) ?? '', new RegExp(`${created.slice(0, 12)}…`));
    assert.match((await row.textContent()) ?? '', /active/);
    assert.equal(await page.getByLabel('API key', { exact: true }).count(), 0, 'no key field any more');
    await screenshot(page, 'api-keys');
  });

  test('revoking asks first: dismissing keeps the key; accepting revokes it on the very next request', async () => {
    const { page } = b;
    let question = '';
    page.once('dialog', (d) => {
      question = d.message();
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Revoke Production web app' }).click();
    assert.match(question, /Revoke the key “Production web app”\?/);
    assert.equal((await ping(created)).status, 200, 'a dismissed confirmation revokes nothing');

    page.once('dialog', (d) => void d.accept());
    await andWait(page, () => page.getByRole('button', { name: 'Revoke Production web app' }).click());
    assert.match(
      (await page.getByRole('status').textContent()) ?? '',
      /API key “Production web app” revoked/,
    );
    assert.match((await rowOf('Production web app').textContent()) ?? '', /revoked/);
    const res = await ping(created);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'invalid_api_key');
  });

  test('the create form can be reached and submitted with the keyboard alone', async () => {
    const { page } = b;
    await open();
    const focused = async (selector: string) => (await page.locator(`${selector}:focus`).count()) === 1;
    async function tabTo(selector: string, max = 40) {
      for (let i = 0; i < max; i++) {
        await page.keyboard.press('Tab');
        if (await focused(selector)) return;
      }
      assert.fail(`Tab never reached ${selector}`);
    }
    await tabTo('input[name="name"]');
    await page.keyboard.type('Keyboard key');
    await page.keyboard.press('Tab');
    assert.ok(await focused('input[name="scopes"][value="otp"]'), 'Tab moves on to the otp scope');
    await tabTo('select[name="expires"]', 3);
    await tabTo('button[type="submit"]:text("Create API key")', 3);
    await andWait(page, () => page.keyboard.press('Space'));
    const key = await page.getByLabel('API key', { exact: true }).inputValue();
    assert.equal((await ping(key)).body.key_name, 'Keyboard key');
  });

  test('at 25 active keys the page explains the limit and the form is disabled', async () => {
    const { page } = b;
    // One key (the keyboard one) is active; the CLI makes all but the last of the rest, eight at a time.
    const names = Array.from({ length: LIMIT - 2 }, (_, i) => `cli-${String(i + 1).padStart(2, '0')}`);
    for (let i = 0; i < names.length; i += 8) {
      await Promise.all(
        names
          .slice(i, i + 8)
          .map((name) =>
            cliJsonAsync(['key', 'create', '--workspace', b.workspaceId, '--name', name], b.env),
          ),
      );
    }
    await open();
    assert.match((await page.locator('hgroup').textContent()) ?? '', /24 of 25 active keys in use\./);
    assert.ok(await page.getByRole('button', { name: 'Create API key' }).isEnabled());

    await nameField().fill('The 25th key');
    await andWait(page, () => page.getByRole('button', { name: 'Create API key' }).click());
    assert.match(await page.getByLabel('API key', { exact: true }).inputValue(), /^pv_live_/);
    assert.match((await page.locator('hgroup').textContent()) ?? '', /25 of 25 active keys in use\./);
    assert.match(
      (await page.locator('#key-limit').textContent()) ?? '',
      /This workspace has 25 active keys, the most it may hold\. Revoke a key you no longer use/,
    );
    assert.ok(
      await page.getByRole('button', { name: 'Create API key' }).isDisabled(),
      'the button is disabled',
    );
    assert.ok(await nameField().isDisabled(), 'the name field is disabled');

    await open();
    assert.ok(await page.locator('#key-limit').isVisible(), 'the limit is still explained on a later visit');
    assert.ok(await page.getByRole('button', { name: 'Create API key' }).isDisabled());
    await screenshot(page, 'api-keys-limit');
  });

  test('on a phone (390×844) the page does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await open();
      assert.equal(await scrollsSideways(page), false, 'the API keys page is wider than the phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
