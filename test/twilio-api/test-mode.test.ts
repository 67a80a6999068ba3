// A test key over the Twilio-compatible API (docs/twilio-compatibility.md, "Test mode") behaves as on /v1: its
// verifications are test ones (the outbox only, never a carrier), the live key of the same service finds them
// nowhere (20404 for fetch, cancel and check, by SID or by number), the reverse holds too, and a test number
// takes its fixed code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { codeFor } from '../helpers/app.js';
import {
  assertRestError,
  seededService,
  startTwilioApp,
  type TwilioTestApp,
  twilioClient,
} from '../helpers/twilio.js';

describe('Twilio API: test keys over Basic auth', () => {
  let t: TwilioTestApp;
  let live: Awaited<ReturnType<typeof seededService>>;
  let testVerify: ReturnType<ReturnType<typeof twilioClient>['verify']['v2']['services']>;

  before(async () => {
    t = await startTwilioApp();
    live = await seededService(t);
    const key = await t.services.keys.createKey(
      { workspaceId: live.workspaceId, name: 'suite', mode: 'test' },
      OPERATOR,
    );
    testVerify = twilioClient(t.url, key.key).verify.v2.services(live.serviceSid);
    await t.services.testNumbers.addTestNumber(
      { workspaceId: live.workspaceId, phone: '+61412349801', code: '9876' },
      OPERATOR,
    );
  });
  after(() => t.close());

  test('a test verification goes to the outbox as a test one, and the live key does not find it', async () => {
    const to = '+61412349811';
    const sent = await testVerify.verifications.create({ to, channel: 'sms' });
    assert.equal(sent.status, 'pending');
    const row = await t.store.db
      .selectFrom('verifications')
      .select(['mode', 'delivery_provider'])
      .where('workspace_id', '=', live.workspaceId)
      .where('phone', '=', to)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { mode: 'test', delivery_provider: 'test' });
    await assertRestError(live.verify.verifications(sent.sid).fetch(), 404, 20404);
    await assertRestError(live.verify.verifications(to).fetch(), 404, 20404);
    await assertRestError(
      live.verify.verificationChecks.create({ code: '123456', verificationSid: sent.sid }),
      404,
      20404,
    );
    await assertRestError(live.verify.verificationChecks.create({ code: '123456', to }), 404, 20404);
    await assertRestError(live.verify.verifications(sent.sid).update({ status: 'canceled' }), 404, 20404);
    const code = await codeFor(t.services, to);
    const checked = await testVerify.verificationChecks.create({ code, verificationSid: sent.sid });
    assert.equal(checked.status, 'approved');
  });

  test('the reverse: a live verification is not found by the test key', async () => {
    const to = '+61412349812';
    const sent = await live.verify.verifications.create({ to, channel: 'sms' });
    await assertRestError(testVerify.verifications(sent.sid).fetch(), 404, 20404);
    await assertRestError(testVerify.verificationChecks.create({ code: '123456', to }), 404, 20404);
    await assertRestError(testVerify.verifications(sent.sid).update({ status: 'canceled' }), 404, 20404);
    assert.equal((await live.verify.verifications(sent.sid).fetch()).status, 'pending');
  });

  test('a test number takes its fixed code through the Twilio API too', async () => {
    const sent = await testVerify.verifications.create({ to: '+61412349801', channel: 'sms' });
    const checked = await testVerify.verificationChecks.create({ code: '9876', verificationSid: sent.sid });
    assert.equal(checked.status, 'approved');
  });
});
