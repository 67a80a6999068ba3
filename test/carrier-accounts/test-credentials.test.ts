// "Test credentials" through the carrier service (both stores): the account of the workspace asked for is
// tested with its stored credentials at its base URL, each outcome recorded in the audit trail (type and outcome,
// never a credential or the carrier's words); an unknown id, another workspace's account and odd ids (NUL,
// huge, odd Unicode) are not found and test nothing; credentials another secret sealed, and a carrier without a
// test, are a 409 that tests nothing. Concurrent tests each get their own answer and entry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Actor, OPERATOR } from '../../src/audit/actor.js';
import { BUILT_IN_CARRIERS } from '../../src/delivery/carriers/index.js';
import { AppError } from '../../src/errors.js';
import { createServices } from '../../src/services.js';
import { pigeon } from '../fakes/fake-carrier.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { auditRows, oneEntryAddedBy } from '../helpers/audit.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';

const MEMBER: Actor = { kind: 'account', id: 'acc_tester', email: 'tester@example.com' };

async function notFound(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'not_found');
    assert.ok(err.message.length < 120, err.message);
    return true;
  });
}

describe('carrier service: test credentials', () => {
  let t: TestApp;
  let fake: TwilioFake;
  let ws = '';
  let other = '';

  before(async () => {
    fake = await startTwilioFake({ ...TWILIO, friendlyName: 'Acme Verify' });
    t = await createTestApp({ carrierTypes: [...BUILT_IN_CARRIERS, pigeon] });
    ws = (await t.services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR)).id;
    other = (await t.services.workspaces.createWorkspace({ name: 'Globex' }, OPERATOR)).id;
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const addTwilio = async (workspaceId: string, credentials = TWILIO) =>
    (
      await t.services.carriers.addAccount(
        { workspaceId, type: 'twilio', credentials, baseUrl: fake.baseUrl },
        OPERATOR,
      )
    ).id;

  test('ok: the answer names the account, the trail records who tested it and the outcome', async () => {
    const id = await addTwilio(ws);
    let result: Awaited<ReturnType<typeof t.services.carriers.testCredentials>> | undefined;
    const entry = await oneEntryAddedBy(t.services, ws, async () => {
      result = await t.services.carriers.testCredentials(ws, id, MEMBER);
    });
    assert.deepEqual(Object.keys(result ?? {}).sort(), ['detail', 'id', 'outcome', 'tested_at', 'type']);
    assert.equal(result?.outcome, 'ok');
    assert.equal(result?.detail, 'Twilio: account "Acme Verify", active');
    assert.equal(result?.id, id);
    assert.equal(entry.action, 'carrier.tested');
    assert.equal(entry.target, id);
    assert.deepEqual(entry.details, { type: 'twilio', outcome: 'ok' });
    assert.equal(fake.requests.at(-1)?.path, `/2010-04-01/Accounts/${TWILIO.accountSid}.json`);
  });

  test('refused and unreachable are answers, not errors, and are recorded too', async () => {
    const wrong = await addTwilio(ws, { ...TWILIO, authToken: 'not-the-token-0000' });
    const refused = await t.services.carriers.testCredentials(ws, wrong, OPERATOR);
    assert.deepEqual([refused.outcome, refused.detail], ['refused', 'Twilio HTTP 401 20003: Authenticate']);

    const gone = await t.services.carriers.addAccount(
      { workspaceId: ws, type: 'twilio', credentials: TWILIO, baseUrl: 'http://127.0.0.1:9' },
      OPERATOR,
    );
    const entry = await oneEntryAddedBy(t.services, ws, () =>
      t.services.carriers.testCredentials(ws, gone.id, OPERATOR),
    );
    assert.deepEqual(entry.details, { type: 'twilio', outcome: 'unreachable' });
  });

  test("an unknown id, another workspace's account and odd ids are not found, and test nothing", async () => {
    const theirs = await addTwilio(other);
    const mine = await addTwilio(ws);
    const before = fake.requests.length;
    const rowsBefore = (await auditRows(t.store)).length;
    await notFound(t.services.carriers.testCredentials(ws, theirs, OPERATOR));
    await notFound(t.services.carriers.testCredentials(other, mine, OPERATOR));
    await notFound(t.services.carriers.testCredentials(ws, 'car_00000000000000000000000000', OPERATOR));
    for (const odd of [
      '',
      `${mine}\u0000`,
      'car_\u0000',
      'x'.repeat(100_000),
      'car_é🙂\u202e',
      "car_' OR 1=1 --",
    ]) {
      await notFound(t.services.carriers.testCredentials(ws, odd, OPERATOR));
    }
    await notFound(t.services.carriers.testCredentials(`${ws}\u0000`, mine, OPERATOR));
    assert.equal(fake.requests.length, before);
    assert.equal((await auditRows(t.store)).length, rowsBefore);
  });

  test('a carrier without a test, and credentials this secret cannot open: 409, nothing called or recorded', async () => {
    const bird = await t.services.carriers.addAccount(
      {
        workspaceId: ws,
        type: 'pigeon',
        credentials: { loftId: 'loft-1', apiToken: 'pigeon-token', signingSecret: 'pigeon-secret' },
        baseUrl: fake.baseUrl,
      },
      OPERATOR,
    );
    const sealed = await addTwilio(ws);
    const elsewhere = createServices({
      store: t.store,
      secret: 'a-different-secret-a-different-secret-0000',
      publicUrl: TEST_PUBLIC_URL,
    });
    const before = fake.requests.length;
    const rowsBefore = (await auditRows(t.store)).length;
    for (const [services, id] of [
      [t.services, bird.id],
      [elsewhere, sealed],
    ] as const) {
      await assert.rejects(services.carriers.testCredentials(ws, id, OPERATOR), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'conflict');
        return true;
      });
    }
    await elsewhere.carrierRuntime.close();
    assert.equal(fake.requests.length, before);
    assert.equal((await auditRows(t.store)).length, rowsBefore);
  });

  test('concurrent tests of one account each answer and each are recorded', async () => {
    const id = await addTwilio(ws);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.services.carriers.testCredentials(ws, id, MEMBER)),
    );
    assert.deepEqual(new Set(results.map((r) => r.outcome)), new Set(['ok']));
    const rows = (await auditRows(t.store)).filter((r) => r.target === id && r.action === 'carrier.tested');
    assert.equal(rows.length, 8);
  });

  test("no audit row holds a credential or the carrier's words", async () => {
    for (const row of await auditRows(t.store)) {
      const text = JSON.stringify(row);
      assert.equal(text.includes(TWILIO.authToken), false);
      assert.equal(text.includes('not-the-token-0000'), false);
      assert.equal(text.includes('pigeon-token'), false);
      assert.equal(text.includes('Acme Verify'), false);
    }
  });
});
