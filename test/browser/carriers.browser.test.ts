// In a real browser, the Carriers page: a Twilio account added in the form (no form offers a base URL: the
// operator points it at a local Twilio double with the CLI, and the card shows that address), a number tied to it
// on the Workspace page, the callback URL to set at the carrier, a refused form that gives no secret back,
// credentials tested (refused, then, once rotated, ok: one GET of the account at the operator's address, the
// outcome in the page's notice), credentials rotated (the next code goes out with the new ones, to the operator's
// address) and removal, refused while a number still sends through the account.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
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
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { cliJson } from '../helpers/process.js';

const PATH = '/dashboard/carriers';
const SENDER = '+61491570156';
// The server (and the CLI) read PUBLIC_URL from the environment they inherit, as in production.
const PUBLIC_URL = 'http://verify.example.com';
const NEW_TOKEN = 'twilio-auth-token-rotated-in-browser';

describe('browser: carriers', { skip: browserSkip() }, () => {
  let b: SignedInApp;
  let fake: TwilioFake;
  let api: ApiCall;
  let accountId = '';

  before(async () => {
    process.env.PUBLIC_URL = PUBLIC_URL;
    // The carrier accepts only the rotated token: sends succeed once the rotation has taken effect.
    fake = await startTwilioFake({ accountSid: TWILIO.accountSid, authToken: NEW_TOKEN });
    b = await openSignedInApp('Acme', [SENDER]);
    api = apiCaller(b);
  });
  after(async () => {
    await b?.close();
    await fake?.close();
  });

  const open = (path = PATH) => b.page.goto(`${b.baseUrl}${path}`);
  const addForm = (type: string) => b.page.locator(`#add-${type}`);
  const card = () => b.page.locator(`article#${accountId}`);
  const status = async () => (await b.page.getByRole('status').textContent()) ?? '';

  test('adding a Twilio account in the form lists it, and the page never shows the token', async () => {
    const { page } = b;
    await open();
    assert.match((await page.locator('#accounts').textContent()) ?? '', /no carrier account yet/);
    await addForm('twilio').getByText('Twilio account', { exact: true }).click();
    await addForm('twilio').getByLabel('Account SID').fill(TWILIO.accountSid);
    await addForm('twilio').getByLabel('Auth token').fill(TWILIO.authToken);
    assert.equal(
      await addForm('twilio')
        .getByLabel(/Base URL/)
        .count(),
      0,
      'no base URL field',
    );
    await andWait(page, () => page.getByRole('button', { name: 'Add Twilio account' }).click());
    accountId = /Twilio account (car_\w+) added\./.exec(await status())?.[1] ?? '';
    assert.match(accountId, /^car_/);
    assert.match((await card().textContent()) ?? '', /API\s*The carrier's own API/);

    // The operator points the account at the carrier's double, with the CLI.
    cliJson(
      [
        'carrier',
        'rotate',
        accountId,
        '--account-sid',
        TWILIO.accountSid,
        '--auth-token',
        TWILIO.authToken,
      ].concat(['--base-url', fake.baseUrl]),
      b.env,
    );
    await open();
    assert.match(
      (await card().textContent()) ?? '',
      new RegExp(`${fake.baseUrl.replace(/[.:/]/g, '\\$&')}\\s*\\(set by the operator with the CLI\\)`),
    );
    assert.equal(
      (await page.content()).includes(TWILIO.authToken),
      false,
      'the token is nowhere in the page',
    );
  });

  test('the card gives the callback URL to set at the carrier, with a copy button', async () => {
    const url = card().getByRole('textbox', { name: `Callback URL of ${accountId}` });
    assert.equal(await url.inputValue(), `${PUBLIC_URL}/webhooks/twilio/${accountId}`);
    assert.equal(await url.getAttribute('readonly'), '');
    assert.ok(await card().getByRole('button', { name: 'Copy' }).isVisible());
  });

  test('a refused form names the field and gives no secret back', async () => {
    const { page } = b;
    const vonage = addForm('vonage');
    await vonage.getByText('Vonage account', { exact: true }).click();
    await vonage.getByLabel('API key').fill('abcd1234');
    await vonage.getByLabel('API secret').fill('vonage-secret-typed-in-browser');
    await vonage.getByLabel('Application ID').fill('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
    await vonage.getByLabel('Private key').fill('not a key');
    await vonage.getByLabel('Signature secret').fill('vonage-signature-typed-in-browser');
    await andWait(page, () => page.getByRole('button', { name: 'Add Vonage account' }).click());
    assert.match(
      (await addForm('vonage').getByRole('alert').textContent()) ?? '',
      /Private key must be a private key in PEM form\./,
    );
    assert.equal(await addForm('vonage').getByLabel('API secret').inputValue(), '');
    assert.equal(await addForm('vonage').getByLabel('Private key').inputValue(), '');
    assert.equal(
      await addForm('vonage').getByLabel('Application ID').inputValue(),
      'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
    );
    const html = await page.content();
    for (const secret of [
      'vonage-secret-typed-in-browser',
      'vonage-signature-typed-in-browser',
      'not a key',
    ]) {
      assert.equal(html.includes(secret), false, `${secret} came back`);
    }
  });

  test('on the Workspace page the number is tied to the account, and the Carriers page lists it', async () => {
    const { page } = b;
    await open('/dashboard/settings');
    const select = page.getByRole('combobox', { name: `${SENDER} sends through` });
    assert.equal(await select.inputValue(), 'none');
    await select.selectOption(accountId);
    await andWait(page, () => page.getByRole('button', { name: `Move ${SENDER}`, exact: true }).click());
    assert.match(await status(), new RegExp(`\\${SENDER} now sends through carrier account ${accountId}`));
    assert.equal(
      await page.getByRole('combobox', { name: `${SENDER} sends through` }).inputValue(),
      accountId,
    );
    await screenshot(page, 'settings-carriers');

    await open();
    assert.match((await card().textContent()) ?? '', new RegExp(`Sends from\\s*\\${SENDER}`));
  });

  test('Test credentials: the carrier refuses the old token, and the page says so', async () => {
    const { page } = b;
    await open();
    const before = fake.requests.length;
    await andWait(page, () =>
      card()
        .getByRole('button', { name: `Test the credentials of Twilio account ${accountId}` })
        .click(),
    );
    const notice = (await page.locator('p.flash.flash-error').textContent()) ?? '';
    assert.equal(
      notice,
      `Twilio account ${accountId}: the carrier refused the credentials: rotate them. Twilio HTTP 401 20003: Authenticate`,
    );
    assert.equal(new URL(page.url()).hash, `#${accountId}`);
    // One GET of the account at the operator's address, nothing sent.
    const calls = fake.requests.slice(before);
    assert.deepEqual(
      calls.map((r) => `${r.method} ${r.path}`),
      [`GET /2010-04-01/Accounts/${TWILIO.accountSid}.json`],
    );
    assert.equal((await page.content()).includes(TWILIO.authToken), false);
  });

  test('rotated credentials are used by the very next code sent', async () => {
    const { page } = b;
    // Before: the carrier refuses the old token.
    await api('POST', '/v1/otp/send', { phone: '+61412345001', channel: 'sms' });
    const basic = (token: string) =>
      `Basic ${Buffer.from(`${TWILIO.accountSid}:${token}`).toString('base64')}`;
    const requestTo = (phone: string) => fake.requests.find((r) => r.form.get('To') === phone);
    assert.equal(requestTo('+61412345001')?.headers.authorization, basic(TWILIO.authToken));

    await card().getByText('Rotate credentials').click();
    await card().getByLabel('Account SID').fill(TWILIO.accountSid);
    await card().getByLabel('Auth token').fill(NEW_TOKEN);
    assert.equal(
      await card()
        .getByLabel(/Base URL/)
        .count(),
      0,
      'no base URL field',
    );
    await andWait(page, () => card().getByRole('button', { name: 'Save new credentials' }).click());
    assert.match(await status(), new RegExp(`New credentials saved for Twilio account ${accountId}`));
    assert.equal((await page.content()).includes(NEW_TOKEN), false);

    const sent = await api('POST', '/v1/otp/send', { phone: '+61412345002', channel: 'sms' });
    assert.equal(sent.status, 201);
    assert.equal((sent.body.delivery as { ok: boolean }).ok, true, JSON.stringify(sent.body));
    // It reached the double: the operator's base URL was kept by the rotation.
    assert.equal(requestTo('+61412345002')?.headers.authorization, basic(NEW_TOKEN));
  });

  test('Test credentials after the rotation: the carrier takes them, and the page names the account', async () => {
    const { page } = b;
    await open();
    await andWait(page, () =>
      card()
        .getByRole('button', { name: `Test the credentials of Twilio account ${accountId}` })
        .click(),
    );
    assert.equal(
      await status(),
      `Twilio account ${accountId}: the carrier accepted the credentials. Twilio: account "My first Twilio account", active`,
    );
    assert.equal(await page.locator('p.flash.flash-error').count(), 0);
    assert.equal((await page.content()).includes(NEW_TOKEN), false);
  });

  test('removal asks first and is refused while the number sends through the account; then it goes', async () => {
    const { page } = b;
    const remove = () => card().getByRole('button', { name: `Remove Twilio account ${accountId}` });
    let question = '';
    page.once('dialog', (d) => {
      question = d.message();
      void d.accept();
    });
    await andWait(page, () => remove().click());
    assert.match(question, new RegExp(`Remove the Twilio account ${accountId}\\?`));
    assert.match(
      (await card().getByRole('alert').textContent()) ?? '',
      new RegExp(
        `still sends from \\${SENDER}: move that number to another account or to the development provider`,
      ),
    );

    await open('/dashboard/settings');
    await page.getByRole('combobox', { name: `${SENDER} sends through` }).selectOption('none');
    await andWait(page, () => page.getByRole('button', { name: `Move ${SENDER}`, exact: true }).click());
    assert.match(await status(), /now sends through the development provider/);

    await open();
    page.once('dialog', (d) => void d.accept());
    await andWait(page, () => remove().click());
    assert.match(await status(), new RegExp(`Twilio account ${accountId} removed\\.`));
    assert.equal(await card().count(), 0);
  });

  test('with a Telnyx account in use, neither the Carriers page nor the numbers list scrolls sideways on a phone (390×844)', async () => {
    const { page } = b;
    // An account to show, and a number tied to it.
    await open();
    await addForm('telnyx').getByText('Telnyx account', { exact: true }).click();
    await addForm('telnyx').getByLabel('API key').fill('KEY0123456789ABCDEF_browser');
    await andWait(page, () => page.getByRole('button', { name: 'Add Telnyx account' }).click());
    const telnyx = /Telnyx account (car_\w+) added\./.exec(await status())?.[1] ?? '';
    await open('/dashboard/settings');
    await page.getByRole('combobox', { name: `${SENDER} sends through` }).selectOption(telnyx);
    await andWait(page, () => page.getByRole('button', { name: `Move ${SENDER}`, exact: true }).click());
    await open();
    await addForm('twilio').getByText('Twilio account', { exact: true }).click();
    await screenshot(page, 'carriers');

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of [PATH, '/dashboard/settings']) {
        await open(path);
        assert.equal(await scrollsSideways(page), false, `${path} is wider than the phone`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
