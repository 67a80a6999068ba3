// Administering carrier accounts (src/carrier-accounts/service.ts): removing one (refused while numbers send through it),
// rotating its credentials (validated like a new account's, used by the very next send) and moving a number
// between accounts and the development provider; each scoped to the account's own workspace.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AppError } from '../../src/errors.js';
import { startTwilioFake } from '../fakes/twilio.js';
import { client, createTestApp, type TestApp } from '../helpers/app.js';
import { TELNYX, TWILIO, VONAGE } from '../helpers/carrier-fixtures.js';

async function rejects(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<AppError> {
  let caught: AppError | undefined;
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    caught = err;
    return true;
  });
  return caught as AppError;
}

describe('carrier account administration', () => {
  let t: TestApp;
  let ws = '';
  let other = '';

  before(async () => {
    t = await createTestApp();
    ws = (await t.services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR)).id;
    other = (await t.services.workspaces.createWorkspace({ name: 'Globex' }, OPERATOR)).id;
  });
  after(() => t.close());

  const carriers = () => t.services.carriers;
  const twilioAccount = (workspaceId = ws, baseUrl?: string) =>
    carriers().addAccount({ workspaceId, type: 'twilio', credentials: TWILIO, baseUrl }, OPERATOR);
  let nextNumber = 100;
  const addNumber = (workspaceId: string, carrierId?: string) =>
    t.services.workspaces.addNumber({ workspaceId, number: `+61491570${nextNumber++}`, carrierId }, OPERATOR);

  test('the list shows base URL, the numbers tied to each account and created_at, never a credential', async () => {
    const fresh = (await t.services.workspaces.createWorkspace({ name: 'Listed' }, OPERATOR)).id;
    const a = await twilioAccount(fresh, 'https://api.dublin.ie1.twilio.com');
    const b = await carriers().addAccount(
      { workspaceId: fresh, type: 'vonage', credentials: VONAGE },
      OPERATOR,
    );
    const n1 = await addNumber(fresh, a.id);
    const n2 = await addNumber(fresh, a.id);
    await addNumber(fresh);
    const list = await carriers().listAccounts(fresh);
    assert.deepEqual(list, [
      {
        id: a.id,
        type: 'twilio',
        created_at: a.created_at,
        base_url: 'https://api.dublin.ie1.twilio.com',
        numbers: [n1.number, n2.number],
      },
      { id: b.id, type: 'vonage', created_at: b.created_at, base_url: null, numbers: [] },
    ]);
    const text = JSON.stringify(list);
    for (const secret of [TWILIO.authToken, TWILIO.accountSid, VONAGE.apiSecret, VONAGE.signatureSecret]) {
      assert.equal(text.includes(secret), false);
    }
  });

  test('removeAccount refuses (409 conflict) while numbers send through it, naming them; then removes it', async () => {
    const account = await twilioAccount();
    const n1 = await addNumber(ws, account.id);
    const n2 = await addNumber(ws, account.id);
    const refused = await rejects(carriers().removeAccount(ws, account.id, OPERATOR), 'conflict');
    assert.match(refused.message, new RegExp(`${n1.number.replace('+', '\\+')}, \\${n2.number}`));
    assert.ok(await carriers().getAccount(account.id), 'still there');

    await carriers().setNumberCarrier(ws, n1.id, null, OPERATOR);
    await rejects(
      carriers().removeAccount(ws, account.id, OPERATOR),
      'conflict',
      new RegExp(`\\${n2.number}`),
    );
    await carriers().setNumberCarrier(ws, n2.id, null, OPERATOR);
    const removed = await carriers().removeAccount(ws, account.id, OPERATOR);
    assert.equal(removed.id, account.id);
    assert.equal(await carriers().getAccount(account.id), undefined);
    assert.equal(
      (await carriers().listAccounts(ws)).some((a) => a.id === account.id),
      false,
    );
    await rejects(carriers().removeAccount(ws, account.id, OPERATOR), 'not_found');
  });

  test("another workspace's account is not_found for remove, rotate and tying, and nothing changes", async () => {
    const foreign = await twilioAccount(other);
    const mine = await addNumber(ws);
    await rejects(carriers().removeAccount(ws, foreign.id, OPERATOR), 'not_found');
    await rejects(
      carriers().rotateCredentials(ws, foreign.id, { credentials: { ...TWILIO, authToken: 'x' } }, OPERATOR),
      'not_found',
    );
    await rejects(carriers().setNumberCarrier(ws, mine.id, foreign.id, OPERATOR), 'not_found');
    assert.deepEqual((await carriers().getAccount(foreign.id))?.credentials, TWILIO);
    const numbers = await t.services.workspaces.listNumbers(ws);
    assert.equal(numbers.find((n) => n.id === mine.id)?.carrier_id, null);
    // And a number of another workspace cannot be moved from this one.
    const theirs = await addNumber(other);
    const account = await twilioAccount();
    await rejects(carriers().setNumberCarrier(ws, theirs.id, account.id, OPERATOR), 'not_found');
    await rejects(carriers().setNumberCarrier(ws, theirs.id, null, OPERATOR), 'not_found');
  });

  test('setNumberCarrier moves a number between accounts and back to the development provider', async () => {
    const a = await twilioAccount();
    const b = await carriers().addAccount({ workspaceId: ws, type: 'telnyx', credentials: TELNYX }, OPERATOR);
    const n = await addNumber(ws);
    assert.equal((await carriers().setNumberCarrier(ws, n.id, a.id, OPERATOR)).carrier_id, a.id);
    const moved = await carriers().setNumberCarrier(ws, n.id, b.id, OPERATOR);
    assert.deepEqual(moved, { ...n, carrier_id: b.id });
    // Accounts made in the same millisecond list in id order, so each is found by its id.
    const listed = await carriers().listAccounts(ws);
    assert.deepEqual(listed.find((x) => x.id === a.id)?.numbers, []);
    assert.deepEqual(listed.find((x) => x.id === b.id)?.numbers, [n.number]);
    assert.equal((await carriers().setNumberCarrier(ws, n.id, null, OPERATOR)).carrier_id, null);
    await rejects(carriers().setNumberCarrier(ws, 'num_nope', a.id, OPERATOR), 'not_found');
  });

  test('rotateCredentials validates like addAccount, keeps the type and re-seals; the base URL changes only when given', async () => {
    const account = await twilioAccount(ws, 'https://proxy.example.test');
    const newToken = 'twilio-auth-token-rotated-0000000';
    const rotated = await carriers().rotateCredentials(
      ws,
      account.id,
      { credentials: { ...TWILIO, authToken: newToken } },
      OPERATOR,
    );
    assert.equal(rotated.type, 'twilio');
    assert.equal(rotated.base_url, 'https://proxy.example.test', 'kept when not given');
    assert.equal(JSON.stringify(rotated).includes(newToken), false);
    assert.deepEqual((await carriers().getAccount(account.id))?.credentials, {
      ...TWILIO,
      authToken: newToken,
    });
    const row = await t.store.db
      .selectFrom('carrier_accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.stringify(row).includes(newToken), false, 'sealed, not plain');

    // The same rules as a new account: missing, foreign and malformed fields are refused, naming the field.
    const before = row.credentials;
    const field = async (credentials: Record<string, unknown>, name: string) => {
      const err = await rejects(
        carriers().rotateCredentials(ws, account.id, { credentials: credentials }, OPERATOR),
        'invalid_request',
      );
      assert.equal(err.extras.errors?.[0]?.field, name);
    };
    await field({ accountSid: TWILIO.accountSid }, 'auth_token');
    await field({ ...TWILIO, apiSecret: VONAGE.apiSecret }, 'api_secret');
    await field(VONAGE, 'api_key');
    await rejects(
      carriers().rotateCredentials(
        ws,
        account.id,
        { credentials: TWILIO, baseUrl: 'ftp://x.test' },
        OPERATOR,
      ),
      'invalid_request',
      /base_url/,
    );
    const after = await t.store.db
      .selectFrom('carrier_accounts')
      .select('credentials')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.credentials, before, 'a refused rotation changes nothing');

    const moved = await carriers().rotateCredentials(
      ws,
      account.id,
      { credentials: TWILIO, baseUrl: 'https://edge.example.test/' },
      OPERATOR,
    );
    assert.equal(moved.base_url, 'https://edge.example.test');
    for (const clear of ['', null]) {
      const own = await carriers().rotateCredentials(
        ws,
        account.id,
        { credentials: TWILIO, baseUrl: clear },
        OPERATOR,
      );
      assert.equal(own.base_url, null, `${JSON.stringify(clear)} goes back to the carrier's own API`);
    }
  });

  test('the very next send uses rotated credentials (the router reads the stored account per send)', async () => {
    const newToken = 'twilio-auth-token-after-rotation-1';
    // The carrier only accepts the new token.
    const fake = await startTwilioFake({ accountSid: TWILIO.accountSid, authToken: newToken });
    try {
      const fresh = (await t.services.workspaces.createWorkspace({ name: 'Rotated' }, OPERATOR)).id;
      const account = await twilioAccount(fresh, fake.baseUrl);
      await t.services.workspaces.addNumber(
        {
          workspaceId: fresh,
          number: '+61491570156',
          carrierId: account.id,
        },
        OPERATOR,
      );
      const api = client(
        t.app,
        (await t.services.keys.createKey({ workspaceId: fresh, name: 'k' }, OPERATOR)).key,
      );
      const basic = (token: string) =>
        `Basic ${Buffer.from(`${TWILIO.accountSid}:${token}`).toString('base64')}`;

      const to = (phone: string) => fake.requests.find((r) => r.form.get('To') === phone);
      await api.send({ phone: '+61412345100', channel: 'sms' });
      assert.equal(to('+61412345100')?.headers.authorization, basic(TWILIO.authToken));

      await carriers().rotateCredentials(
        fresh,
        account.id,
        { credentials: { ...TWILIO, authToken: newToken } },
        OPERATOR,
      );
      const res = await api.send({ phone: '+61412345101', channel: 'sms' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(to('+61412345101')?.headers.authorization, basic(newToken));
      assert.equal(res.json().delivery.ok, true, res.body);
    } finally {
      await fake.close();
    }
  });

  test('removing an account and tying a number to it at the same time never leaves the number on a deleted account', async () => {
    for (let i = 0; i < 10; i++) {
      const account = await twilioAccount();
      const n = await addNumber(ws);
      const [removed, tied] = await Promise.allSettled([
        carriers().removeAccount(ws, account.id, OPERATOR),
        i % 2 === 0 ? carriers().setNumberCarrier(ws, n.id, account.id, OPERATOR) : addNumber(ws, account.id),
      ]);
      const exists = (await carriers().getAccount(account.id)) !== undefined;
      const onIt = (await t.services.workspaces.listNumbers(ws)).filter((x) => x.carrier_id === account.id);
      if (removed.status === 'fulfilled') {
        assert.equal(tied.status, 'rejected', 'tied to an account that was removed');
        assert.equal(exists, false);
        assert.deepEqual(onIt, []);
      } else {
        assert.equal((removed.reason as AppError).code, 'conflict');
        assert.equal(tied.status, 'fulfilled');
        assert.equal(exists, true);
        assert.equal(onIt.length, 1);
        // Leave it free for the next round's numbering to stay simple.
        await carriers().setNumberCarrier(ws, onIt[0]?.id ?? '', null, OPERATOR);
      }
    }
  });
});
