// The Carriers page and the numbers' "sends through" on the Workspace page: listing accounts (base URL, numbers,
// callback URL, created date), adding one of each type, validation errors that name the field and never echo a
// secret, the base URL shown but never taken (it is the operator's, set with the CLI: a form carrying one is
// refused), rotating credentials (the operator's base URL kept), removing (refused while numbers use the
// account), moving numbers, and only the session's workspace. No credential ever appears in any page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { statusCallbackUrl } from '../../src/delivery/callback-url.js';
import {
  createTestApp,
  type SeededWorkspace,
  seedWorkspace,
  TEST_PUBLIC_URL,
  type TestApp,
} from '../helpers/app.js';
import { SMPP, TELNYX, TWILIO, VONAGE } from '../helpers/carrier-fixtures.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

const PAGE = '/dashboard/carriers';
const SETTINGS = '/dashboard/settings';
const ROTATED = {
  authToken: 'twilio-auth-token-rotated-in-the-page',
  apiSecret: 'vonage-api-secret-rotated-in-the-page',
};
const SECRETS = [
  TWILIO.authToken,
  TELNYX.apiKey,
  VONAGE.apiSecret,
  VONAGE.signatureSecret,
  VONAGE.privateKey.split('\n')[1] ?? VONAGE.privateKey,
  SMPP.password,
  ROTATED.authToken,
  ROTATED.apiSecret,
];

const FORMS = {
  twilio: { type: 'twilio', account_sid: TWILIO.accountSid, auth_token: TWILIO.authToken },
  telnyx: {
    type: 'telnyx',
    api_key: TELNYX.apiKey,
    messaging_profile_id: TELNYX.messagingProfileId,
    connection_id: TELNYX.connectionId,
    public_key: TELNYX.publicKey,
  },
  vonage: {
    type: 'vonage',
    api_key: VONAGE.apiKey,
    api_secret: VONAGE.apiSecret,
    application_id: VONAGE.applicationId,
    private_key: VONAGE.privateKey,
    signature_secret: VONAGE.signatureSecret,
  },
  smpp: {
    type: 'smpp',
    host: SMPP.host,
    port: String(SMPP.port),
    system_id: SMPP.systemId,
    password: SMPP.password,
  },
} as const;

describe('dashboard: carriers', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let browser: DashboardClient;
  /** Every page the suite was shown: none may hold a secret (checked last). */
  const shown: string[] = [];

  before(async () => {
    t = await createTestApp();
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    other = await seedWorkspace(t.services, { name: 'Other Co', numbers: [{ number: '+64211234567' }] });
    browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  const get = async (path: string) => {
    const res = await browser.get(path);
    shown.push(res.body);
    return res;
  };
  const post = async (path: string, form: Record<string, string>) => {
    const res = await browser.post(path, form);
    shown.push(res.body);
    return res;
  };
  const accounts = (workspaceId = ws.workspaceId) => t.services.carriers.listAccounts(workspaceId);
  const numbers = (workspaceId = ws.workspaceId) => t.services.workspaces.listNumbers(workspaceId);
  /** The account's card on the Carriers page. */
  const cardOf = (html: string, id: string) =>
    new RegExp(`<article class="carrier-account" id="${id}"[\\s\\S]*?</article>`).exec(html)?.[0] ?? '';

  test('an empty workspace: the page says every code goes to the Inbox, with a form per carrier type', async () => {
    const res = await get(PAGE);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /This workspace has no carrier account yet/);
    for (const type of ['Twilio', 'Telnyx', 'Vonage', 'SMPP']) {
      assert.match(res.body, new RegExp(`<button type="submit">Add ${type} account</button>`));
    }
    const nav = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(res.body)?.[1] ?? '';
    assert.match(nav, /<a href="\/dashboard\/carriers" aria-current="page">Carriers<\/a>/);
  });

  test('secrets are password inputs (the PEM key a textarea) and never carry a value', async () => {
    const res = await get(PAGE);
    for (const name of ['auth_token', 'api_secret', 'signature_secret', 'password']) {
      for (const input of res.body.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`, 'g')) ?? []) {
        assert.match(input, /type="password"/, input);
        assert.doesNotMatch(input, /value=/, input);
      }
    }
    // The Telnyx API key is a secret; Vonage's is an identifier shown in its dashboard.
    assert.match(res.body, /<input id="add-telnyx-api_key" name="api_key" required="" type="password"/);
    assert.match(res.body, /<textarea id="add-vonage-private_key" name="private_key" required=""/);
  });

  test('adding an account of each type stores exactly its credentials and shows it in the list', async () => {
    for (const [type, form] of Object.entries(FORMS)) {
      const res = await post(PAGE, form);
      assert.equal(res.statusCode, 302, `${type}: ${res.body.slice(0, 300)}`);
      const added = (await accounts()).at(-1);
      assert.equal(added?.type, type);
      assert.equal(res.headers.location, `${PAGE}#${added?.id}`);
      const stored = await t.services.carriers.getAccount(added?.id ?? '');
      const expected = { twilio: TWILIO, telnyx: TELNYX, vonage: VONAGE, smpp: SMPP }[type];
      assert.deepEqual(stored?.credentials, expected, type);
      assert.equal(stored?.baseUrl, undefined, `${type}: the carrier's own API`);
    }
    const page = await get(PAGE);
    assert.match(page.body, /SMPP account car_\w+ added\./);
    // SMPP's optional system type, where the SMSC asks for one.
    assert.equal((await post(PAGE, { ...FORMS.smpp, system_type: 'VMA' })).statusCode, 302);
    const withType = (await accounts()).at(-1);
    assert.deepEqual((await t.services.carriers.getAccount(withType?.id ?? ''))?.credentials, {
      ...SMPP,
      systemType: 'VMA',
    });
    await t.services.carriers.removeAccount(ws.workspaceId, withType?.id ?? '', OPERATOR);
  });

  test('each card shows type, id, API address, numbers, the callback URL to set and the created date', async () => {
    const [twilio, telnyx, , smpp] = await accounts();
    assert.ok(twilio && telnyx && smpp);
    // The operator points the Twilio account at a regional edge, as `carrier rotate … --base-url` does.
    await t.services.carriers.rotateCredentials(
      ws.workspaceId,
      twilio.id,
      { credentials: TWILIO, baseUrl: 'https://api.dublin.ie1.twilio.com/' },
      OPERATOR,
    );
    const [number] = await numbers();
    await t.services.carriers.setNumberCarrier(ws.workspaceId, number?.id ?? '', twilio.id, OPERATOR);
    const page = (await get(PAGE)).body;

    const card = cardOf(page, twilio.id);
    assert.match(card, new RegExp(`Twilio account <code>${twilio.id}</code>`));
    assert.match(
      card,
      /<code>https:\/\/api\.dublin\.ie1\.twilio\.com<\/code> <small class="muted">\(set by the operator with the CLI\)/,
    );
    assert.match(card, /<code>\+61491570156<\/code>/);
    const callback = statusCallbackUrl(TEST_PUBLIC_URL, twilio);
    assert.match(card, new RegExp(`readonly="" value="${callback}"`));
    assert.match(card, new RegExp(`<time datetime="${twilio.created_at}">${twilio.created_at.slice(0, 10)}`));

    const telnyxCard = cardOf(page, telnyx.id);
    assert.match(telnyxCard, /The carrier&#39;s own API/);
    assert.match(telnyxCard, /None yet: choose this account for a number/);
    assert.match(telnyxCard, new RegExp(`value="${TEST_PUBLIC_URL}/webhooks/telnyx/${telnyx.id}"`));
    assert.match(telnyxCard, /TeXML application/);
    assert.match(cardOf(page, smpp.id), /None: delivery receipts come over the SMPP session/);
    // SMPP reaches its SMSC by host and port: no API address to show.
    assert.doesNotMatch(cardOf(page, smpp.id), /<dt>API<\/dt>/);
  });

  test('a refused form names the field, shows the non-secret values again and no secret at all', async () => {
    const before = (await accounts()).length;
    const cases = [
      [{ ...FORMS.twilio, account_sid: '' }, 'twilio', /Account SID is required for a twilio account\./],
      [
        { ...FORMS.vonage, private_key: 'not a key' },
        'vonage',
        /Private key must be a private key in PEM form\./,
      ],
      [{ ...FORMS.telnyx, public_key: 'c2hvcnQ=' }, 'telnyx', /Public key must be the base64 Ed25519/],
      [{ ...FORMS.smpp, port: '70000' }, 'smpp', /Port must be a whole number from 1 to 65535\./],
    ] as const;
    for (const [form, type, message] of cases) {
      const res = await post(PAGE, form);
      assert.equal(res.statusCode, 400, type);
      assert.match(res.body, message);
      assert.match(res.body, new RegExp(`<details id="add-${type}" open=""`), `${type} form open`);
      for (const secret of SECRETS) assert.equal(res.body.includes(secret), false, `${type} echoed a secret`);
    }
    const vonage = await post(PAGE, { ...FORMS.vonage, private_key: 'not a key' });
    assert.match(vonage.body, new RegExp(`name="application_id"[^>]*value="${VONAGE.applicationId}"`));
    assert.match(vonage.body, /name="private_key" required="" aria-invalid="true"/);
    assert.match(
      vonage.body,
      /<input id="add-vonage-api_secret" name="api_secret" required="" type="password"/,
    );
    assert.equal((await accounts()).length, before, 'nothing added');
    // A hand-made form with an unknown type is refused too.
    assert.equal((await post(PAGE, { ...FORMS.twilio, type: 'pigeon' })).statusCode, 400);
  });

  test('no form offers the base URL, and a form carrying one is refused (400) for add and rotate, changing nothing', async () => {
    const page = await get(PAGE);
    assert.doesNotMatch(page.body, /name="base_url"/);
    assert.doesNotMatch(page.body, /Base URL/);
    const [twilio] = await accounts();
    assert.ok(twilio);
    const operators = 'https://api.dublin.ie1.twilio.com';
    assert.equal((await t.services.carriers.getAccount(twilio.id))?.baseUrl, operators);
    const before = (await accounts()).length;
    const refusal =
      /Base URL is the operator&#39;s setting, made with the CLI \(carrier add … --base-url\), not in the dashboard\./;
    // Internal addresses (the SSRF this closes), an empty value (it used to mean "the carrier's own API"), and
    // odd values: all refused alike, whatever they hold.
    for (const base_url of [
      'http://169.254.169.254/latest/meta-data',
      'http://127.0.0.1:5432',
      'http://10.0.0.1/',
      '',
      'https://api.twilio.com',
      'https://\u202eexample.test',
      `https://${'a'.repeat(8000)}.test`,
    ]) {
      const added = await post(PAGE, { ...FORMS.twilio, base_url });
      assert.equal(added.statusCode, 400, JSON.stringify(base_url.slice(0, 40)));
      assert.match(added.body, refusal);
      assert.match(added.body, /<details id="add-twilio" open=""/);
      assert.equal(added.body.includes('169.254.169.254'), false, 'the value is not shown again');

      const rotated = await post(`${PAGE}/${twilio.id}/rotate`, {
        account_sid: TWILIO.accountSid,
        auth_token: ROTATED.authToken,
        base_url,
      });
      assert.equal(rotated.statusCode, 400);
      assert.match(cardOf(rotated.body, twilio.id), refusal);
      assert.match(cardOf(rotated.body, twilio.id), /<details open="" class="carrier-rotate">/);
    }
    // A NUL is refused before any form runs, by the rule for text the store cannot hold (http/safe-text.ts).
    for (const path of [PAGE, `${PAGE}/${twilio.id}/rotate`]) {
      const res = await post(path, { ...FORMS.twilio, base_url: 'http://x.test/\u0000' });
      assert.equal(res.statusCode, 400, path);
      assert.match(res.body, /base_url: must not contain NUL characters/);
    }
    assert.equal((await accounts()).length, before, 'nothing added');
    const stored = await t.services.carriers.getAccount(twilio.id);
    assert.equal(stored?.baseUrl, operators, "the operator's base URL kept");
    assert.deepEqual(stored?.credentials, TWILIO, 'credentials not rotated');
    // A hand-made form with the field repeated is refused too.
    const repeated = await browser.post(PAGE, { ...FORMS.twilio, base_url: ['', 'http://127.0.0.1/'] });
    assert.equal(repeated.statusCode, 400);
    assert.equal((await accounts()).length, before);
  });

  test("rotating credentials replaces them (type, id and the operator's base URL kept); a refused rotation changes nothing", async () => {
    const [twilio] = await accounts();
    assert.ok(twilio);
    const path = `${PAGE}/${twilio.id}/rotate`;
    const refused = await post(path, { account_sid: TWILIO.accountSid, auth_token: '' });
    assert.equal(refused.statusCode, 400);
    assert.match(cardOf(refused.body, twilio.id), /Auth token is required for a twilio account\./);
    assert.match(cardOf(refused.body, twilio.id), /<details open="" class="carrier-rotate">/);
    assert.deepEqual((await t.services.carriers.getAccount(twilio.id))?.credentials, TWILIO);

    const res = await post(path, { account_sid: TWILIO.accountSid, auth_token: ROTATED.authToken });
    assert.equal(res.statusCode, 302, res.body.slice(0, 300));
    assert.equal(res.headers.location, `${PAGE}#${twilio.id}`);
    const stored = await t.services.carriers.getAccount(twilio.id);
    assert.deepEqual(stored?.credentials, { ...TWILIO, authToken: ROTATED.authToken });
    assert.equal(stored?.baseUrl, 'https://api.dublin.ie1.twilio.com', "the operator's base URL kept");
    const page = await get(PAGE);
    assert.match(page.body, new RegExp(`New credentials saved for Twilio account ${twilio.id}\\.`));
    assert.match(cardOf(page.body, twilio.id), /<code>https:\/\/api\.dublin\.ie1\.twilio\.com<\/code>/);
    const vonage = (await accounts()).find((a) => a.type === 'vonage');
    const rotated = await post(`${PAGE}/${vonage?.id}/rotate`, {
      ...FORMS.vonage,
      api_secret: ROTATED.apiSecret,
    });
    assert.equal(rotated.statusCode, 302);
    assert.equal((await t.services.carriers.getAccount(vonage?.id ?? ''))?.type, 'vonage');
  });

  test('removing asks for confirmation, is refused while a number uses the account, then removes it', async () => {
    const [twilio] = await accounts();
    assert.ok(twilio);
    const page = await get(PAGE);
    assert.match(
      cardOf(page.body, twilio.id),
      new RegExp(
        `action="${PAGE}/${twilio.id}/remove" class="inline-form" data-confirm="Remove the Twilio account`,
      ),
    );
    const refused = await post(`${PAGE}/${twilio.id}/remove`, {});
    assert.equal(refused.statusCode, 409);
    assert.match(
      cardOf(refused.body, twilio.id),
      new RegExp(
        `role="alert"[^>]*>Carrier account ${twilio.id} still sends from \\+61491570156: move that number`,
      ),
    );
    assert.ok(await t.services.carriers.getAccount(twilio.id));

    const [number] = await numbers();
    await post(`${SETTINGS}/numbers/${number?.id}/carrier`, { carrier_id: 'none' });
    const removed = await post(`${PAGE}/${twilio.id}/remove`, {});
    assert.equal(removed.statusCode, 302);
    assert.equal(await t.services.carriers.getAccount(twilio.id), undefined);
    assert.match((await get(PAGE)).body, new RegExp(`Twilio account ${twilio.id} removed\\.`));
  });

  test('the Workspace page shows what each number sends through and moves it between accounts', async () => {
    const [telnyx, vonage] = await accounts();
    assert.ok(telnyx && vonage);
    const [number] = await numbers();
    assert.ok(number);
    let page = await get(SETTINGS);
    const select = new RegExp(`<select id="carrier-of-${number.id}" name="carrier_id">([\\s\\S]*?)</select>`);
    assert.match(select.exec(page.body)?.[1] ?? '', /<option value="none" selected="">Development provider/);

    const moved = await post(`${SETTINGS}/numbers/${number.id}/carrier`, { carrier_id: telnyx.id });
    assert.equal(moved.statusCode, 302);
    assert.equal(moved.headers.location, `${SETTINGS}#numbers`);
    assert.equal((await numbers())[0]?.carrier_id, telnyx.id);
    page = await get(SETTINGS);
    assert.match(page.body, new RegExp(`\\+61491570156 now sends through carrier account ${telnyx.id}\\.`));
    assert.match(
      select.exec(page.body)?.[1] ?? '',
      new RegExp(`<option value="${telnyx.id}" selected="">Telnyx`),
    );

    await post(`${SETTINGS}/numbers/${number.id}/carrier`, { carrier_id: vonage.id });
    assert.equal((await numbers())[0]?.carrier_id, vonage.id);
    const back = await post(`${SETTINGS}/numbers/${number.id}/carrier`, { carrier_id: 'none' });
    assert.equal(back.statusCode, 302);
    assert.equal((await numbers())[0]?.carrier_id, null);
    assert.match((await get(SETTINGS)).body, /now sends through the development provider/);
  });

  test('the add-number form ties the new number to the chosen account', async () => {
    const [telnyx] = await accounts();
    const res = await post(`${SETTINGS}/numbers`, {
      number: '+61491570157',
      type: '',
      carrier_id: telnyx?.id ?? '',
    });
    assert.equal(res.statusCode, 302);
    const added = (await numbers()).find((n) => n.number === '+61491570157');
    assert.equal(added?.carrier_id, telnyx?.id);
    const plain = await post(`${SETTINGS}/numbers`, { number: '+61491570158', type: '', carrier_id: 'none' });
    assert.equal(plain.statusCode, 302);
    assert.equal((await numbers()).find((n) => n.number === '+61491570158')?.carrier_id, null);
  });

  test("another workspace's accounts never appear and cannot be rotated, removed or chosen", async () => {
    const foreign = await t.services.carriers.addAccount(
      {
        workspaceId: other.workspaceId,
        type: 'twilio',
        credentials: TWILIO,
      },
      OPERATOR,
    );
    const page = await get(PAGE);
    assert.equal(page.body.includes(foreign.id), false);
    assert.equal((await get(SETTINGS)).body.includes(foreign.id), false);

    const rotate = await post(`${PAGE}/${foreign.id}/rotate`, FORMS.twilio);
    assert.equal(rotate.statusCode, 404);
    assert.equal((await post(`${PAGE}/${foreign.id}/remove`, {})).statusCode, 404);
    assert.deepEqual((await t.services.carriers.getAccount(foreign.id))?.credentials, TWILIO);

    const [mine] = await numbers();
    const chosen = await post(`${SETTINGS}/numbers/${mine?.id}/carrier`, { carrier_id: foreign.id });
    assert.equal(chosen.statusCode, 404);
    assert.equal((await numbers())[0]?.carrier_id, null);
    const [theirs] = await numbers(other.workspaceId);
    const [own] = await accounts();
    const move = await post(`${SETTINGS}/numbers/${theirs?.id}/carrier`, { carrier_id: own?.id ?? '' });
    assert.equal(move.statusCode, 404);
    assert.equal((await numbers(other.workspaceId))[0]?.carrier_id, null);
    const add = await post(`${SETTINGS}/numbers`, {
      number: '+61491570159',
      type: '',
      carrier_id: foreign.id,
    });
    assert.equal(add.statusCode, 404);
    assert.equal(
      (await numbers()).some((n) => n.number === '+61491570159'),
      false,
    );
  });

  test('no page shown in this suite holds a credential', () => {
    assert.ok(shown.length > 20, `${shown.length} pages`);
    for (const body of shown) {
      for (const secret of SECRETS)
        assert.equal(body.includes(secret), false, `a page held ${secret.slice(0, 12)}…`);
    }
  });
});
