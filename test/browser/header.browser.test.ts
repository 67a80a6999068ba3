// The page frame at phone, tablet and desktop widths (issue 16, item 7): a compact header whose workspace switcher
// and sign-out stay whole on a phone, links that never push the page sideways, and the favicon.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  browserSkip,
  OWNER_EMAIL,
  openSignedInApp,
  type SignedInApp,
  scrollsSideways,
} from '../helpers/browser.js';
import { cliJson } from '../helpers/process.js';

const skip = browserSkip();

describe('the dashboard header', { skip }, () => {
  let b: SignedInApp;

  before(async () => {
    b = await openSignedInApp('Acme Corporation Limited', ['+61491570156']);
    // Two workspaces: the switcher is shown.
    const second = cliJson<{ id: string }>(['workspace', 'create', '--name', 'Second Brand Pty'], b.env);
    cliJson(['account', 'add', '--email', OWNER_EMAIL, '--workspace', second.id], b.env);
  });
  after(() => b?.close());

  const box = async (selector: string) => {
    const found = await b.page.locator(selector).boundingBox();
    assert.ok(found, `${selector} is shown`);
    return found;
  };

  for (const [width, height, most] of [
    [375, 812, 110],
    [768, 1024, 110],
    [1024, 768, 110],
    [1280, 900, 100],
  ] as const) {
    test(`at ${width} px: at most ${most} px tall, switcher and sign-out whole, nothing sideways`, async () => {
      await b.page.setViewportSize({ width, height });
      await b.page.goto(`${b.baseUrl}/dashboard/audit`);
      const header = await box('body > header');
      assert.ok(header.height <= most, `header is ${header.height} px tall`);
      for (const selector of ['#workspace-switch', 'form[action="/dashboard/signout"] button']) {
        const part = await box(selector);
        assert.ok(
          part.x >= 0 && part.x + part.width <= width,
          `${selector} lies inside the ${width} px viewport`,
        );
        assert.ok(part.y + part.height <= header.y + header.height, `${selector} lies inside the header`);
      }
      assert.equal(await scrollsSideways(b.page), false, 'the page does not scroll sideways');
      // The current page's link is in view, however far along the row of links it is.
      const current = await box('.nav-links [aria-current="page"]');
      assert.ok(
        current.x >= 0 && current.x + current.width <= width,
        `the current link is in view at ${width} px`,
      );
      assert.equal(await b.page.locator('.nav-links [aria-current="page"]').textContent(), 'Audit log');
    });
  }

  test('the switcher still switches on a phone', async () => {
    await b.page.setViewportSize({ width: 375, height: 812 });
    await b.page.goto(`${b.baseUrl}/dashboard`);
    await Promise.all([
      b.page.waitForURL(/\/dashboard/),
      b.page.waitForEvent('load'),
      b.page.selectOption('#workspace-switch', { label: 'Second Brand Pty' }),
    ]);
    assert.equal(await b.page.locator('#workspace-switch option:checked').textContent(), 'Second Brand Pty');
  });

  test('every page names the favicon, and it is served as SVG', async () => {
    await b.page.goto(`${b.baseUrl}/dashboard`);
    const href = await b.page.locator('link[rel="icon"]').getAttribute('href');
    assert.equal(href, '/dashboard/assets/favicon.svg');
    const res = await fetch(new URL(href, b.baseUrl));
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^image\/svg\+xml/);
    assert.match(await res.text(), /^<svg /);
  });
});
