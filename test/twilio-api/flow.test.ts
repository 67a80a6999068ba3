// The Twilio-compatible API through the real `twilio` SDK, its Verify base URL pointed here: a verification's
// whole flow (create, check wrong and right, fetch, cancel, the Service), each response checked against the schema
// Twilio's OpenAPI document gives it, and the same rules as /v1 behind it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { twilioServiceSid, verificationSid } from '../../src/twilio-api/sids.js';
import { client, codeFor } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import {
  assertRestError,
  lastBody,
  seededService,
  startTwilioApp,
  type TwilioTestApp,
} from '../helpers/twilio.js';
import { assertTwilioSchema } from './openapi-schemas.js';

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('Twilio Verify v2 through the twilio SDK: a verification flow', () => {
  const clock = fakeClock();
  let t: TwilioTestApp;
  let svc: Awaited<ReturnType<typeof seededService>>;

  before(async () => {
    t = await startTwilioApp({ clock });
    svc = await seededService(t, { name: 'Acme Health' });
  });
  after(() => t.close());

  test('the Service: fetched by the workspace id or its VA alias, named as the workspace, valid by the OpenAPI schema', async () => {
    const byId = await svc.client.verify.v2.services(svc.workspaceId).fetch();
    const body = lastBody(svc.client);
    assertTwilioSchema('verify.v2.service', body);
    assert.equal(byId.sid, twilioServiceSid(svc.workspaceId));
    assert.match(byId.sid, /^VA[0-9a-f]{32}$/);
    assert.equal(byId.friendlyName, 'Acme Health');
    assert.equal(byId.codeLength, 6);
    const byAlias = await svc.verify.fetch();
    assert.equal(byAlias.sid, byId.sid);
    assert.equal(byAlias.accountSid, byId.accountSid);
    assert.match(byAlias.accountSid, /^AC[0-9a-f]{32}$/);
  });

  test('create (sms), a wrong code (pending), the right code (approved), then fetch: approved', async () => {
    const to = '+61412340001';
    const created = await svc.verify.verifications.create({ to, channel: 'sms' });
    assertTwilioSchema('verify.v2.service.verification', lastBody(svc.client));
    assert.equal(created.status, 'pending');
    assert.equal(created.valid, false);
    assert.equal(created.to, to);
    assert.equal(created.channel, 'sms');
    assert.equal(created.serviceSid, svc.serviceSid);
    assert.match(created.sid, /^VE[0-9a-f]{32}$/);
    assert.equal(
      created.url,
      `http://127.0.0.1/twilio/v2/Services/${svc.serviceSid}/Verifications/${created.sid}`,
    );
    assert.equal(created.sendCodeAttempts.length, 1);

    const code = await codeFor(t.services, to);
    const bad = await svc.verify.verificationChecks.create({ to, code: wrong(code) });
    assertTwilioSchema('verify.v2.service.verification_check', lastBody(svc.client));
    assert.deepEqual([bad.status, bad.valid, bad.sid], ['pending', false, created.sid]);

    const good = await svc.verify.verificationChecks.create({ verificationSid: created.sid, code });
    assertTwilioSchema('verify.v2.service.verification_check', lastBody(svc.client));
    assert.deepEqual([good.status, good.valid, good.sid, good.to], ['approved', true, created.sid, to]);

    const fetched = await svc.verify.verifications(created.sid).fetch();
    assertTwilioSchema('verify.v2.service.verification', lastBody(svc.client));
    assert.deepEqual([fetched.status, fetched.valid], ['approved', true]);
    // The same verification /v1 knows: its id's SID is the one the SDK holds.
    const row = await t.store.db
      .selectFrom('verifications')
      .select('id')
      .where('phone', '=', to)
      .executeTakeFirst();
    assert.equal(verificationSid(String(row?.id)), created.sid);
    assert.equal((await client(t.app, svc.key).get(String(row?.id))).json().status, 'verified');
  });

  test('call is the voice channel; fetch by To; cancel (Status=canceled) makes it canceled, and a check then finds nothing', async () => {
    const to = '+61412340002';
    const created = await svc.verify.verifications.create({ to, channel: 'call', locale: 'en-GB' });
    assert.equal(created.channel, 'call');
    const [message] = await t.services.outbox.list({ to, limit: 1 });
    assert.equal(message?.channel, 'voice');

    const byTo = await svc.verify.verifications(to).fetch();
    assert.equal(byTo.sid, created.sid);

    const canceled = await svc.verify.verifications(created.sid).update({ status: 'canceled' });
    assertTwilioSchema('verify.v2.service.verification', lastBody(svc.client));
    assert.equal(canceled.status, 'canceled');
    // Cancelling is idempotent, as on /v1.
    assert.equal(
      (await svc.verify.verifications(created.sid).update({ status: 'canceled' })).status,
      'canceled',
    );
    await assertRestError(
      svc.verify.verificationChecks.create({
        verificationSid: created.sid,
        code: await codeFor(t.services, to),
      }),
      404,
      20404,
    );
  });

  test('a new code supersedes the pending one: the old SID reads canceled, the new one pending', async () => {
    const to = '+61412340003';
    const first = await svc.verify.verifications.create({ to, channel: 'sms' });
    const second = await svc.verify.verifications.create({ to, channel: 'sms' });
    assert.notEqual(first.sid, second.sid);
    assert.equal((await svc.verify.verifications(first.sid).fetch()).status, 'canceled');
    assert.equal((await svc.verify.verifications(second.sid).fetch()).status, 'pending');
  });

  test('checks exhausted: wrong codes until the budget is spent answer 429 60202, and the right code no longer works', async () => {
    const to = '+61412340004';
    const created = await svc.verify.verifications.create({ to, channel: 'sms' });
    const code = await codeFor(t.services, to);
    // /v1's default budget: 5 attempts. Four wrong codes leave it pending...
    for (let i = 0; i < 4; i++) {
      assert.equal((await svc.verify.verificationChecks.create({ to, code: wrong(code) })).status, 'pending');
    }
    // ...the fifth spends the budget: Max check attempts reached.
    await assertRestError(svc.verify.verificationChecks.create({ to, code: wrong(code) }), 429, 60202);
    await assertRestError(svc.verify.verificationChecks.create({ to, code }), 429, 60202);
    const fetched = await svc.verify.verifications(created.sid).fetch();
    assert.deepEqual([fetched.status, fetched.valid], ['max_attempts_reached', false]);
  });

  test('sends exhausted: past the send limit (5 in 10 minutes) a create answers 429 60203 with Retry-After', async () => {
    const to = '+61412340005';
    for (let i = 0; i < 5; i++) await svc.verify.verifications.create({ to, channel: 'sms' });
    const err = await assertRestError(svc.verify.verifications.create({ to, channel: 'sms' }), 429, 60203);
    assert.match(err.message, /At most 5 codes/);
    assert.ok(Number(svc.client.httpClient?.lastResponse?.headers?.['retry-after']) >= 1);
  });

  test('expired: a check after the code expired answers 404 20404; fetch says expired', async () => {
    const to = '+61412340006';
    const created = await svc.verify.verifications.create({ to, channel: 'sms' });
    const code = await codeFor(t.services, to);
    clock.advance(301_000);
    await assertRestError(svc.verify.verificationChecks.create({ to, code }), 404, 20404);
    const fetched = await svc.verify.verifications(created.sid).fetch();
    assertTwilioSchema('verify.v2.service.verification', lastBody(svc.client));
    assert.equal(fetched.status, 'expired');
  });

  test('undelivered (the development provider rejects …0999): the verification is failed at once', async () => {
    const created = await svc.verify.verifications.create({ to: '+61412340999', channel: 'sms' });
    assert.equal(created.status, 'failed');
    assert.equal(created.valid, false);
  });
});
