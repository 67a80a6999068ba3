// In a real browser, the verifications log and the detail page, on codes sent through /v1 as a backend would:
// newest first with masked numbers, filtered in the form, and the timeline and "never arrived" diagnostics.
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
import type { Body } from '../helpers/cli-setup.js';
import { cliJson } from '../helpers/process.js';

const PATH = '/dashboard/verifications';

describe('browser: verifications log and detail', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  /** Sent in this order: verified (voice), wrong (sms), rejected (voice, …0999), pending (sms). */
  const sent: Record<string, Body> = {};
  let call: ApiCall;

  async function send(phone: string, channel: 'sms' | 'voice'): Promise<Body> {
    const res = await call('POST', '/v1/otp/send', { phone, channel });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }
  /** The code the development provider kept for `phone` (what the user would read on the phone). */
  function codeFor(phone: string): string {
    const [message] = cliJson<{ body: string }[]>(['outbox', '--to', phone, '--limit', '1'], b.env);
    const code =
      /(\d+)\s*$/.exec(message?.body ?? '')?.[1] ?? /code is: ([\d, ]+)\./.exec(message?.body ?? '')?.[1];
    assert.ok(code, `no code in the outbox for ${phone}`);
    return code.replace(/\D/g, '');
  }

  before(async () => {
    b = await openSignedInApp('Acme', ['+61491570156']);
    call = apiCaller(b);
    sent.verified = await send('+61412345101', 'voice');
    const wrongFirst = await call('POST', '/v1/otp/check', {
      verification_id: sent.verified.id,
      code: '000000',
    });
    assert.equal(wrongFirst.body.verified, false);
    const right = await call('POST', '/v1/otp/check', {
      verification_id: sent.verified.id,
      code: codeFor('+61412345101'),
    });
    assert.equal(right.body.verified, true);
    sent.wrong = await send('+61412345202', 'sms');
    const wrong = await call('POST', '/v1/otp/check', { verification_id: sent.wrong.id, code: '000000' });
    assert.equal(wrong.body.verified, false);
    sent.rejected = await send('+61412340999', 'voice');
    assert.equal(sent.rejected.status, 'undelivered');
    sent.pending = await send('+61412345303', 'sms');
  });
  after(() => b?.close());

  /** The log's rows as [masked phone, status, channel], top to bottom. */
  async function rows(): Promise<string[][]> {
    return b.page
      .locator('table.log tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          ['.phone', '.status', '.channel'].map((c) => tr.querySelector(c)?.textContent?.trim() ?? ''),
        ),
      );
  }

  test('the log lists the codes newest first, with the numbers masked', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}${PATH}`);
    assert.deepEqual(await rows(), [
      ['+61 4•• ••• 303', 'pending', 'SMS'],
      ['+61 4•• ••• 999', 'undelivered', 'Voice call'],
      ['+61 4•• ••• 202', 'pending', 'SMS'],
      ['+61 4•• ••• 101', 'verified', 'Voice call'],
    ]);
    const text = (await page.locator('main').innerText()).replace(/\s/g, '');
    for (const digits of ['412345101', '412345202', '412340999', '412345303'])
      assert.ok(!text.includes(digits), `${digits} is shown unmasked`);
    await screenshot(page, 'verifications');
  });

  test('filtering by status in the form lists only those codes; Clear lists all again', async () => {
    const { page } = b;
    await page.getByLabel('Status').selectOption('verified');
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    assert.equal(new URL(page.url()).searchParams.get('status'), 'verified');
    assert.deepEqual(await rows(), [['+61 4•• ••• 101', 'verified', 'Voice call']]);

    await page.getByLabel('Status').selectOption('pending');
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    assert.deepEqual(
      (await rows()).map((r) => r[0]),
      ['+61 4•• ••• 303', '+61 4•• ••• 202'],
    );

    await andWait(page, () => page.getByRole('link', { name: 'Clear' }).click());
    assert.equal((await rows()).length, 4);
  });

  test('filtering by phone (the last digits, or the whole number) finds that number only', async () => {
    const { page } = b;
    await page.getByLabel('Phone').fill('202');
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    assert.deepEqual(await rows(), [['+61 4•• ••• 202', 'pending', 'SMS']]);

    await page.getByLabel('Phone').fill('+61 412 340 999');
    await andWait(page, () => page.getByLabel('Phone').press('Enter'));
    assert.deepEqual(await rows(), [['+61 4•• ••• 999', 'undelivered', 'Voice call']]);

    await page.getByLabel('Phone').fill('+61 499 999 000');
    await andWait(page, () => page.getByRole('button', { name: 'Filter' }).click());
    assert.equal((await rows()).length, 0);
    assert.match((await page.locator('main').textContent()) ?? '', /No verifications match these filters\./);
  });

  test('the detail of the verified code: the timeline from creation to verification', async () => {
    const { page } = b;
    await page.goto(`${b.baseUrl}${PATH}`);
    const row = page.locator('table.log tbody tr').filter({ hasText: '101' });
    await andWait(page, () => row.getByRole('link').click());
    assert.equal(new URL(page.url()).pathname, `${PATH}/${sent.verified?.id}`);
    assert.match(
      (await page.getByRole('heading', { level: 1 }).textContent()) ?? '',
      /\+61 412 345 101\s*verified/,
    );
    const events = (await page.locator('ol.timeline li').allTextContents()).map((t) =>
      t.replace(/\s+/g, ' '),
    );
    assert.equal(events.length, 4, events.join('\n'));
    assert.match(events[0] ?? '', /Voice call code created for \+61 412 345 101, from \+61491570156/);
    assert.match(events[1] ?? '', /Handed over to the \w+ provider/);
    assert.match(events[2] ?? '', /Wrong code entered \(attempt 1 of \d\)/);
    assert.match(events[3] ?? '', /Verified: the right code, on attempt 2 of \d/);
    const support = (await page.locator('article.support').textContent()) ?? '';
    assert.match(support, /The code arrived: the user entered it at .+ UTC, on attempt 2\./);
    await screenshot(page, 'verification-detail');
  });

  test('the detail of the …0999 code: the rejection, its diagnostics and the never-arrived checklist', async () => {
    const { page } = b;
    await andWait(page, () => page.getByRole('link', { name: '« All verifications' }).click());
    const row = page.locator('table.log tbody tr').filter({ hasText: '999' });
    await andWait(page, () => row.getByRole('link').click());
    assert.equal(new URL(page.url()).pathname, `${PATH}/${sent.rejected?.id}`);
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /undelivered/);

    const support = page.locator('article.support');
    assert.equal(
      (await support.getByRole('heading').textContent())?.trim(),
      'If the user says the code never arrived',
    );
    const errorCode = String((sent.rejected?.delivery as Body | undefined)?.error_code ?? '');
    assert.ok(errorCode, 'the send answer names the error code');
    assert.match(
      (await support.textContent()) ?? '',
      new RegExp(`Nothing was sent: the carrier refused the number at hand-over \\(${errorCode}\\)`),
    );
    const delivery = (await page.locator('article[aria-labelledby="delivery-title"]').innerText()).replace(
      /\s+/g,
      ' ',
    );
    assert.match(delivery, /Handed over No/);
    assert.match(delivery, new RegExp(`Error code ${errorCode}`));
    const events = (await page.locator('ol.timeline li').allTextContents()).map((t) =>
      t.replace(/\s+/g, ' '),
    );
    assert.match(events.join('\n'), new RegExp(`Rejected at hand-over: ${errorCode}`));
    await screenshot(page, 'verification-detail-undelivered');
  });

  test('on a phone (390×844) the log does not scroll sideways', async () => {
    const { page } = b;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${b.baseUrl}${PATH}`);
      assert.equal(await scrollsSideways(page), false, 'the log is wider than the phone');
      await screenshot(page, 'verifications-mobile');
      await page.locator('table.log tbody tr a').first().click();
      await page.waitForURL(/\/verifications\/ver_/);
      assert.equal(await scrollsSideways(page), false, 'the detail page is wider than the phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
