// In a real browser, the Audit log page: reached from the navigation, it shows the change just made on another
// page first, by the signed-in account, above what the operator did with the CLI; the "Who" filter narrows it;
// on a phone it does not scroll sideways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  andWait,
  browserSkip,
  OWNER_EMAIL,
  openSignedInApp,
  type SignedInApp,
  screenshot,
  scrollsSideways,
} from '../helpers/browser.js';

const PATH = '/dashboard/audit';

describe('browser: audit log', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  const rows = () => b.page.locator('table.audit tbody tr');

  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
  });
  after(() => b?.close());

  test('a key created on its page is the newest entry, by the signed-in account; the CLI’s changes follow', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}/dashboard/settings/security/api-keys`);
    await page.getByLabel('Name').fill('Production web app');
    await andWait(page, () => page.getByRole('button', { name: 'Create API key' }).click());

    await andWait(page, () => page.getByRole('link', { name: 'Audit log' }).click());
    assert.equal(new URL(page.url()).pathname, PATH);
    const newest = rows().first();
    assert.match((await newest.textContent()) ?? '', /API key created/);
    assert.match((await newest.textContent()) ?? '', new RegExp(OWNER_EMAIL));
    assert.match((await newest.textContent()) ?? '', /Production web app/);
    const all = ((await rows().allTextContents()) ?? []).join('\n');
    for (const action of ['Signed in', 'Member added', 'Number added', 'Workspace created']) {
      assert.match(all, new RegExp(action));
    }
    await screenshot(page, 'audit-log');
  });

  test('the "Who" filter shows only the operator’s changes, and stays chosen', async () => {
    const { page } = b;
    await page.getByLabel('Who').selectOption({ label: 'Operator (CLI)' });
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    const texts = await rows().allTextContents();
    assert.equal(texts.length, 3, texts.join('\n'));
    assert.ok(texts.every((t) => t.includes('Operator (CLI)')));
    assert.equal(await page.getByLabel('Who').inputValue(), 'cli');
  });

  test('on a phone (390×844) the page does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${b.baseUrl}${PATH}`);
      assert.equal(await scrollsSideways(page), false, 'the audit log is wider than the phone');
      await screenshot(page, 'audit-log-mobile');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
