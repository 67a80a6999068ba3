// A test-mode code never reaches a carrier (docs/api.md, "Test mode"): the workspace's number sends through a
// Twilio account pointed at a local fake, and a test key's sends (SMS and voice, to an ordinary number and to a
// test number) leave the fake with no request at all; the codes are in the outbox, marked test, and the
// verification says it went to the test provider. A live key's send through the same number reaches the fake, so
// the account was there to be used.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { TEST_PROVIDER_NAME } from '../../src/delivery/dev-provider.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import type { Check } from '../helpers/api-types.js';
import { type Client, client, codeFor, createTestApp, json, type TestApp } from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { twilioWorkspace } from '../helpers/carrier-workspace.js';
import { sendOk } from '../helpers/verification.js';

describe('test mode and a configured carrier', () => {
  let t: TestApp;
  let fake: TwilioFake;
  let live: Client;
  let testApi: Client;
  let workspaceId: string;

  before(async () => {
    fake = await startTwilioFake(TWILIO);
    t = await createTestApp();
    ({ api: live, workspaceId } = await twilioWorkspace(t.services, t.app, fake.baseUrl));
    const key = await t.services.keys.createKey({ workspaceId, name: 'suite', mode: 'test' }, OPERATOR);
    testApi = client(t.app, key.key);
    await t.services.testNumbers.addTestNumber(
      { workspaceId, phone: '+61412341999', code: '424242' },
      OPERATOR,
    );
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('test sends by SMS and voice reach the outbox only: the carrier receives nothing', async () => {
    const sms = await sendOk(testApi, { phone: '+61412341001', channel: 'sms' });
    const voice = await sendOk(testApi, { phone: '+61412341002', channel: 'voice' });
    const fixed = await sendOk(testApi, { phone: '+61412341999', channel: 'sms' });
    await t.services.dispatcher.drain();
    assert.equal(fake.requests.length, 0, 'no request reached the carrier');
    for (const v of [sms, voice, fixed]) {
      assert.equal(v.delivery.ok, true);
      const row = await t.store.db
        .selectFrom('verifications')
        .select(['delivery_provider', 'from_number'])
        .where('id', '=', v.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.delivery_provider, TEST_PROVIDER_NAME);
      const message = await t.store.db
        .selectFrom('outbox_messages')
        .select(['mode', 'from_number'])
        .where('verification_id', '=', v.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(message, { mode: 'test', from_number: row.from_number });
    }
    // The test codes work, read from the outbox (or fixed).
    const code = await codeFor(t.services, '+61412341001');
    assert.equal(json<Check>(await testApi.check({ verification_id: sms.id, code })).verified, true);
    assert.equal(
      json<Check>(await testApi.check({ verification_id: fixed.id, code: '424242' })).verified,
      true,
    );
  });

  test('a live send through the same number reaches the carrier (the account is configured)', async () => {
    const sent = await sendOk(live, { phone: '+61412341003', channel: 'sms' });
    assert.equal(sent.mode, 'live');
    assert.equal(fake.accepted.length, 1);
    assert.equal(fake.accepted[0]?.form.get('To'), '+61412341003');
    // Its message is not in the outbox: it went to the carrier.
    const inOutbox = await t.store.db
      .selectFrom('outbox_messages')
      .select('id')
      .where('verification_id', '=', sent.id)
      .execute();
    assert.deepEqual(inOutbox, []);
  });
});
