// Carrier accounts (src/carrier-accounts/service.ts): validated per carrier, stored encrypted, listed without secrets,
// and tied to numbers of the same workspace only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { CredentialsUnreadableError } from '../../src/carrier-accounts/credentials.js';
import { AppError } from '../../src/errors.js';
import { createServices } from '../../src/services.js';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { SMPP, TELNYX, TWILIO, VONAGE } from '../helpers/carrier-fixtures.js';

async function rejects(promise: Promise<unknown>, code: string, field?: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code);
    if (field !== undefined) assert.equal(err.extras.errors?.[0]?.field, field, err.message);
    return true;
  });
}

describe('carrier accounts', () => {
  let t: TestApp;
  let ws = '';
  let other = '';

  before(async () => {
    t = await createTestApp();
    ws = (await t.services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR)).id;
    other = (await t.services.workspaces.createWorkspace({ name: 'Globex' }, OPERATOR)).id;
  });
  after(() => t.close());

  test('addAccount answers exactly { id, type, created_at }; getAccount gives the credentials back', async () => {
    const view = await t.services.carriers.addAccount(
      {
        workspaceId: ws,
        type: 'twilio',
        credentials: TWILIO,
        baseUrl: 'https://api.dublin.ie1.twilio.com/',
      },
      OPERATOR,
    );
    assert.deepEqual(Object.keys(view).sort(), ['created_at', 'id', 'type']);
    assert.match(view.id, /^car_[0-9A-Za-z]{24}$/);
    assert.equal(view.type, 'twilio');
    assert.deepEqual(await t.services.carriers.getAccount(view.id), {
      id: view.id,
      workspaceId: ws,
      type: 'twilio',
      credentials: TWILIO,
      baseUrl: 'https://api.dublin.ie1.twilio.com',
    });
  });

  test('stored encrypted: the raw row holds neither the auth token nor the account sid', async () => {
    const { id } = await t.services.carriers.addAccount(
      {
        workspaceId: ws,
        type: 'twilio',
        credentials: TWILIO,
      },
      OPERATOR,
    );
    const row = await t.store.db
      .selectFrom('carrier_accounts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const raw = JSON.stringify(row);
    assert.equal(raw.includes(TWILIO.authToken), false);
    assert.equal(raw.includes(TWILIO.accountSid), false);
    assert.equal(row.base_url, null);
    assert.equal(Buffer.from(row.credentials, 'base64url').includes(TWILIO.authToken), false);
  });

  test('each carrier type keeps exactly the credentials it was given', async () => {
    for (const [type, credentials] of [
      ['telnyx', TELNYX],
      ['telnyx', { apiKey: TELNYX.apiKey }],
      ['vonage', VONAGE],
      ['smpp', SMPP],
    ] as const) {
      const { id } = await t.services.carriers.addAccount({ workspaceId: ws, type, credentials }, OPERATOR);
      const account = await t.services.carriers.getAccount(id);
      assert.equal(account?.type, type);
      assert.deepEqual(account?.credentials, credentials);
    }
  });

  test('smpp --port given as text is stored as a number', async () => {
    const { id } = await t.services.carriers.addAccount(
      {
        workspaceId: ws,
        type: 'smpp',
        credentials: { ...SMPP, port: '2776' },
      },
      OPERATOR,
    );
    assert.deepEqual((await t.services.carriers.getAccount(id))?.credentials, { ...SMPP, port: 2776 });
  });

  test('listAccounts: the workspace accounts, oldest first, never a secret', async () => {
    const { id } = await t.services.carriers.addAccount(
      {
        workspaceId: other,
        type: 'vonage',
        credentials: VONAGE,
      },
      OPERATOR,
    );
    const list = await t.services.carriers.listAccounts(other);
    assert.deepEqual(
      list.map((a) => ({ id: a.id, type: a.type })),
      [{ id, type: 'vonage' }],
    );
    // What it was before, plus base_url and the numbers tied to it (test/carriers/account-admin.test.ts).
    for (const a of list) {
      assert.deepEqual(Object.keys(a).sort(), ['base_url', 'created_at', 'id', 'numbers', 'type']);
    }
    const all = JSON.stringify(await t.services.carriers.listAccounts(ws));
    for (const secret of [
      TWILIO.authToken,
      TELNYX.apiKey,
      VONAGE.apiSecret,
      VONAGE.privateKey,
      SMPP.password,
    ]) {
      assert.equal(all.includes(secret), false);
    }
  });

  test('required credentials per type are enforced, naming the missing field', async () => {
    const add = (type: string, credentials: Record<string, unknown>) =>
      t.services.carriers.addAccount({ workspaceId: ws, type, credentials }, OPERATOR);
    await rejects(add('twilio', { accountSid: TWILIO.accountSid }), 'invalid_request', 'auth_token');
    await rejects(add('twilio', { accountSid: '  ', authToken: 'x' }), 'invalid_request', 'account_sid');
    await rejects(add('telnyx', { connectionId: '1' }), 'invalid_request', 'api_key');
    const { signatureSecret: _s, ...vonageWithoutSecret } = VONAGE;
    await rejects(add('vonage', vonageWithoutSecret), 'invalid_request', 'signature_secret');
    await rejects(add('smpp', { ...SMPP, systemId: undefined }), 'invalid_request', 'system_id');
  });

  test('options of another carrier, malformed keys and ports are refused', async () => {
    const add = (type: string, credentials: Record<string, unknown>) =>
      t.services.carriers.addAccount({ workspaceId: ws, type, credentials }, OPERATOR);
    await rejects(add('twilio', { ...TWILIO, apiKey: 'k' }), 'invalid_request', 'api_key');
    await rejects(add('vonage', { ...VONAGE, privateKey: 'not a key' }), 'invalid_request', 'private_key');
    await rejects(add('telnyx', { ...TELNYX, publicKey: 'c2hvcnQ=' }), 'invalid_request', 'public_key');
    for (const port of [0, 65_536, '22a', 2775.5]) {
      await rejects(add('smpp', { ...SMPP, port }), 'invalid_request', 'port');
    }
    await rejects(add('sms-gateway', TWILIO), 'invalid_request', 'type');
  });

  test('--base-url must be an http(s) URL without credentials', async () => {
    for (const baseUrl of [
      'ftp://api.twilio.com',
      'api.twilio.com',
      'javascript:alert(1)',
      'https://u:p@x.test',
    ]) {
      await rejects(
        t.services.carriers.addAccount(
          { workspaceId: ws, type: 'twilio', credentials: TWILIO, baseUrl },
          OPERATOR,
        ),
        'invalid_request',
        'base_url',
      );
    }
  });

  test('an unknown workspace is not_found; an unknown account id is undefined', async () => {
    await rejects(
      t.services.carriers.addAccount(
        { workspaceId: 'ws_nope', type: 'twilio', credentials: TWILIO },
        OPERATOR,
      ),
      'not_found',
    );
    await rejects(t.services.carriers.listAccounts('ws_nope'), 'not_found');
    assert.equal(await t.services.carriers.getAccount('car_000000000000000000000000'), undefined);
  });

  test('credentials sealed under another server secret do not open', async () => {
    const { id } = await t.services.carriers.addAccount(
      {
        workspaceId: ws,
        type: 'twilio',
        credentials: TWILIO,
      },
      OPERATOR,
    );
    const elsewhere = createServices({
      store: t.store,
      secret: 'a-different-secret-a-different-secret-0000',
      publicUrl: TEST_PUBLIC_URL,
    });
    await assert.rejects(elsewhere.carriers.getAccount(id), CredentialsUnreadableError);
  });

  test('a number is tied to an account of its own workspace only', async () => {
    const { id } = await t.services.carriers.addAccount(
      {
        workspaceId: ws,
        type: 'twilio',
        credentials: TWILIO,
      },
      OPERATOR,
    );
    const n = await t.services.workspaces.addNumber(
      {
        workspaceId: ws,
        number: '+61491570156',
        carrierId: id,
      },
      OPERATOR,
    );
    assert.equal(n.carrier_id, id);
    assert.equal((await t.services.workspaces.listNumbers(ws)).find((x) => x.id === n.id)?.carrier_id, id);
    // Another workspace's account is answered like an unknown one, and nothing is added.
    await rejects(
      t.services.workspaces.addNumber(
        { workspaceId: other, number: '+61491570157', carrierId: id },
        OPERATOR,
      ),
      'not_found',
    );
    assert.deepEqual(await t.services.workspaces.listNumbers(other), []);
    const plain = await t.services.workspaces.addNumber(
      { workspaceId: other, number: '+61491570157' },
      OPERATOR,
    );
    assert.equal(plain.carrier_id, null);
  });
});
