// In a real browser: first-run set-up, sign-out, sign-in by keyboard alone, and a wrong password.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type BrowserApp, browserSkip, openBrowserApp, screenshot } from '../helpers/browser.js';

const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';

describe('browser: set-up, sign-in and sign-out', { skip: browserSkip() }, () => {
  let b: BrowserApp;
  before(async () => {
    b = await openBrowserApp();
  });
  after(() => b?.close());

  /** Whether the element matching `selector` has the keyboard focus. */
  const focused = async (selector: string) => (await b.page.locator(`${selector}:focus`).count()) === 1;

  /** Presses Tab until the focused element matches `selector` (at most `max` presses). */
  async function tabTo(selector: string, max = 10): Promise<void> {
    for (let i = 0; i < max; i++) {
      await b.page.keyboard.press('Tab');
      if (await focused(selector)) return;
    }
    assert.fail(`Tab never reached ${selector}`);
  }

  test('the first visit opens set-up; creating the account and workspace lands signed in', async () => {
    const { page } = b;
    await page.goto(b.baseUrl);
    assert.equal(new URL(page.url()).pathname, '/dashboard/setup');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Welcome to phone-verify');
    await screenshot(page, 'setup');

    await page.getByLabel('Workspace name').fill('Acme');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL((url) => url.pathname !== '/dashboard/setup'),
      page.getByRole('button', { name: 'Create account and workspace' }).click(),
    ]);
    assert.match(new URL(page.url()).pathname, /^\/dashboard/);
    assert.ok(await page.getByText(EMAIL).isVisible(), 'the signed-in e-mail is shown');
    assert.ok(await page.getByRole('button', { name: 'Sign out' }).isVisible());
  });

  test('sign out leads to the sign-in page, and the dashboard asks for sign-in again', async () => {
    const { page } = b;
    await Promise.all([
      page.waitForURL('**/dashboard/signin'),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await page.goto(`${b.baseUrl}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/signin');
    await screenshot(page, 'signin');
  });

  test('a wrong password shows the error and keeps the visitor signed out', async () => {
    const { page } = b;
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    const alert = page.getByRole('alert');
    assert.equal((await alert.textContent())?.trim(), 'The e-mail address or the password is wrong.');
    assert.equal(new URL(page.url()).pathname, '/dashboard/signin');
    await screenshot(page, 'signin-error');
  });

  test('sign in with the keyboard alone: Tab to each field, Enter to submit', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}/dashboard/signin`);
    await tabTo('input[name="email"]');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    assert.ok(await focused('input[name="password"]'), 'Tab moves from e-mail to password');
    await page.keyboard.type(PASSWORD);
    await Promise.all([page.waitForURL(`${b.baseUrl}/dashboard`), page.keyboard.press('Enter')]);
    assert.ok(await page.getByText(EMAIL).isVisible());
  });
});
