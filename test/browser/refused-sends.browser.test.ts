// In a real browser: sends the pumping guard refused show in the verifications log beside the codes sent (status
// refused, the rule that refused it, a link to the block on the Fraud page), the Status filter lists them alone,
// and a phone's screen does not scroll sideways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type ApiCall,
  andWait,
  apiCaller,
  browserSkip,
  openSignedInApp,
  type SignedInApp,
  screenshot,
  scrollsSideways,
} from '../helpers/browser.js';
import { cliJson } from '../helpers/process.js';

const PATH = '/dashboard/verifications';

describe('browser: refused sends in the verifications log', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let call: ApiCall;

  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
    call = apiCaller(b);
    // A range is blocked at its second number.
    cliJson(['fraud', 'settings', '--workspace', b.workspaceId, '--range-limit', '1'], b.env);
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+61412345101', channel: 'sms' })).status, 201);
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+61412345202' })).status, 403);
    assert.equal((await call('POST', '/v1/otp/send', { phone: '+611900123456' })).status, 403);
  });
  after(() => b?.close());

  /** The log's rows as [masked phone, status, channel], top to bottom. */
  async function rows(): Promise<string[][]> {
    return b.page
      .locator('table.log tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          ['.phone', '.status', '.channel'].map(
            (c) => tr.querySelector(c)?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
          ),
        ),
      );
  }

  test('the log lists refused sends with their rule, merged by time with the codes sent', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}${PATH}`);
    assert.deepEqual(await rows(), [
      ['+61 1 ••• ••• 456', 'refused Number type', 'Voice call'],
      ['+61 4•• ••• 202', 'refused Range velocity', 'Voice call'],
      ['+61 4•• ••• 101', 'pending', 'SMS'],
    ]);
    await screenshot(page, 'verifications-refused');
  });

  test('the Status filter lists refused sends alone; the rule links to its block on the Fraud page', async () => {
    const { page } = b;
    await page.getByLabel('Status').selectOption('refused');
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    assert.equal(new URL(page.url()).searchParams.get('status'), 'refused');
    assert.deepEqual(
      (await rows()).map((r) => r[1]),
      ['refused Number type', 'refused Range velocity'],
    );
    await andWait(page, () => page.getByRole('link', { name: 'Range velocity' }).click());
    const url = new URL(page.url());
    assert.equal(url.pathname, '/dashboard/fraud');
    const blockRow = page.locator(url.hash);
    assert.match((await blockRow.innerText()).replace(/\s+/g, ' '), /\+61412345xxx .*Velocity/);
  });

  test('on a phone (390×844) the log with refused sends does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${b.baseUrl}${PATH}`);
      assert.equal(await scrollsSideways(page), false);
      assert.match((await page.locator('table.log').innerText()).replace(/\s+/g, ' '), /Range velocity/);
      await screenshot(page, 'verifications-refused-mobile');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
