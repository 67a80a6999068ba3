// Every refusal of the Twilio-compatible API as the twilio SDK meets it: a RestException with Twilio's HTTP status
// and code (its error dictionary), never a 500 and never another channel or resource in place of the one asked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { twilioServiceSid } from '../../src/twilio-api/sids.js';
import { seedWorkspace } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import {
  assertRestError,
  seededService,
  startTwilioApp,
  type TwilioTestApp,
  twilioClient,
} from '../helpers/twilio.js';

describe('Twilio-compatible API: errors through the SDK', () => {
  const clock = fakeClock();
  let t: TwilioTestApp;
  let svc: Awaited<ReturnType<typeof seededService>>;
  const outboxCount = async (to: string) => (await t.services.outbox.list({ to, limit: 50 })).length;

  before(async () => {
    t = await startTwilioApp({ clock });
    svc = await seededService(t);
  });
  after(() => t.close());

  test('bad credentials are 401 20003: an unknown key, a malformed one, a revoked one', async () => {
    const unknown = `${svc.key.slice(0, -4)}AAAA`;
    for (const key of [unknown, 'not-a-key', `${svc.key}x`]) {
      await assertRestError(twilioClient(t.url, key).verify.v2.services(svc.serviceSid).fetch(), 401, 20003);
    }
    const spare = await t.services.keys.createKey({ workspaceId: svc.workspaceId, name: 'spare' }, OPERATOR);
    await twilioClient(t.url, spare.key).verify.v2.services(svc.serviceSid).fetch();
    await t.services.keys.revokeKey(svc.workspaceId, spare.id, OPERATOR);
    await assertRestError(
      twilioClient(t.url, spare.key).verify.v2.services(svc.serviceSid).fetch(),
      401,
      20003,
    );
  });

  test('a key without the otp scope is 403 20403, naming the scope', async () => {
    const noScope = await t.services.keys.createKey(
      { workspaceId: svc.workspaceId, name: 'no scope', scopes: [] },
      OPERATOR,
    );
    const err = await assertRestError(
      twilioClient(t.url, noScope.key).verify.v2.services(svc.serviceSid).verifications.create({
        to: '+61412349101',
        channel: 'sms',
      }),
      403,
      20403,
    );
    assert.match(err.message, /otp/);
    assert.equal(await outboxCount('+61412349101'), 0);
  });

  test("another workspace's service, by its VA alias or its id, is 404 20404, like an unknown one", async () => {
    const other = await seedWorkspace(t.services, { name: 'Globex' });
    for (const sid of [
      twilioServiceSid(other.workspaceId),
      other.workspaceId,
      `VA${'0'.repeat(32)}`,
      'nope',
    ]) {
      await assertRestError(svc.client.verify.v2.services(sid).fetch(), 404, 20404);
      await assertRestError(
        svc.client.verify.v2.services(sid).verifications.create({ to: '+61412349102', channel: 'sms' }),
        404,
        20404,
      );
    }
    assert.equal(await outboxCount('+61412349102'), 0);
  });

  test('channels we do not carry (email, whatsapp, sna, auto, anything) are 400 60200 naming Channel: nothing is sent', async () => {
    for (const channel of ['email', 'whatsapp', 'sna', 'auto', 'voice', 'SMS', '']) {
      const err = await assertRestError(
        svc.verify.verifications.create({ to: '+61412349103', channel }),
        400,
        60200,
      );
      assert.match(err.message, /^Invalid parameter: Channel/, channel);
    }
    assert.equal(await outboxCount('+61412349103'), 0);
  });

  test('Locale: English variants are spoken; any other is 400 60200 naming Locale', async () => {
    for (const locale of ['en', 'en-US', 'en-GB', 'EN-au']) {
      await svc.verify.verifications.create({ to: '+61412349104', channel: 'sms', locale });
    }
    for (const locale of ['fr', 'es-MX', 'en-GB-x', 'english', 'zh-HK']) {
      const err = await assertRestError(
        svc.verify.verifications.create({ to: '+61412349105', channel: 'sms', locale }),
        400,
        60200,
      );
      assert.match(err.message, /^Invalid parameter: Locale/);
    }
    assert.equal(await outboxCount('+61412349105'), 0);
  });

  test('parameters we do not carry (CustomCode, CustomMessage, Amount, RateLimits…) are refused by name, not ignored', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ customCode: '123456' }, 'CustomCode'],
      [{ customMessage: 'Your code is' }, 'CustomMessage'],
      [{ amount: '10', payee: 'Acme' }, 'Amount'],
      [{ sendDigits: '1' }, 'SendDigits'],
      [{ rateLimits: { a: 1 } }, 'RateLimits'],
      [{ templateSid: `HJ${'0'.repeat(32)}` }, 'TemplateSid'],
    ];
    for (const [extra, name] of cases) {
      const err = await assertRestError(
        svc.verify.verifications.create({ to: '+61412349106', channel: 'sms', ...extra }),
        400,
        60200,
      );
      assert.ok(err.message.includes(name), `${err.message} names ${name}`);
    }
    assert.equal(await outboxCount('+61412349106'), 0);
  });

  test('To: not a number is 400 60200 naming To; a country outside the allowed list is 403 60605', async () => {
    for (const to of ['+123', 'hello', '+6141234', '+61 4 1234 5678 9999 9999']) {
      const err = await assertRestError(svc.verify.verifications.create({ to, channel: 'sms' }), 400, 60200);
      assert.match(err.message, /^Invalid parameter: To/);
    }
    await assertRestError(
      svc.verify.verifications.create({ to: '+33612345678', channel: 'sms' }),
      403,
      60605,
    );
  });

  test('CustomFriendlyName is the brand: a URL or a line break in it is 400 60200 naming it', async () => {
    const ok = await svc.verify.verifications.create({
      to: '+61412349107',
      channel: 'sms',
      customFriendlyName: 'Globex Health',
    });
    assert.equal(ok.status, 'pending');
    const [message] = await t.services.outbox.list({ to: '+61412349107', limit: 1 });
    assert.match(String(message?.body), /Globex Health/);
    for (const name of ['visit evil.example.com', 'two\nlines']) {
      const err = await assertRestError(
        svc.verify.verifications.create({ to: '+61412349108', channel: 'sms', customFriendlyName: name }),
        400,
        60200,
      );
      assert.match(err.message, /^Invalid parameter: CustomFriendlyName/);
    }
  });

  test('SMS from a workspace with no mobile number is 400 60223 (delivery channel disabled), never a call instead', async () => {
    const landline = await seededService(t, { numbers: [{ number: '+61290000000' }] });
    await assertRestError(
      landline.verify.verifications.create({ to: '+61412349109', channel: 'sms' }),
      400,
      60223,
    );
    assert.equal(await outboxCount('+61412349109'), 0);
  });

  test('VerificationCheck: neither To nor VerificationSid, both, or a malformed SID are 400 60200; an unknown SID is 404 20404', async () => {
    await assertRestError(svc.verify.verificationChecks.create({ code: '123456' }), 400, 60200);
    const sent = await svc.verify.verifications.create({ to: '+61412349110', channel: 'sms' });
    await assertRestError(
      svc.verify.verificationChecks.create({ code: '123456', to: '+61412349110', verificationSid: sent.sid }),
      400,
      60200,
    );
    for (const verificationSid of ['VE123', 'ver_nope', `VE${'g'.repeat(32)}`]) {
      const err = await assertRestError(
        svc.verify.verificationChecks.create({ code: '123456', verificationSid }),
        400,
        60200,
      );
      assert.match(err.message, /^Invalid parameter: VerificationSid/);
    }
    await assertRestError(
      svc.verify.verificationChecks.create({ code: '123456', verificationSid: `VE${'0'.repeat(31)}1` }),
      404,
      20404,
    );
    // A code with no digit is invalid, not a wrong guess.
    await assertRestError(
      svc.verify.verificationChecks.create({ code: 'abc', to: '+61412349110' }),
      400,
      60200,
    );
    // A number with no verification at all.
    await assertRestError(
      svc.verify.verificationChecks.create({ code: '123456', to: '+61412349199' }),
      404,
      20404,
    );
  });

  test("another workspace's verification SID is not found, for fetch, cancel and check alike", async () => {
    const other = await seededService(t, { name: 'Initech' });
    const theirs = await other.verify.verifications.create({ to: '+61412349111', channel: 'sms' });
    await assertRestError(svc.verify.verifications(theirs.sid).fetch(), 404, 20404);
    await assertRestError(svc.verify.verifications(theirs.sid).update({ status: 'canceled' }), 404, 20404);
    await assertRestError(
      svc.verify.verificationChecks.create({ code: '123456', verificationSid: theirs.sid }),
      404,
      20404,
    );
    assert.equal((await other.verify.verifications(theirs.sid).fetch()).status, 'pending');
  });

  test('update: Status=approved is refused (a code must be checked), any other status but canceled too', async () => {
    const sent = await svc.verify.verifications.create({ to: '+61412349112', channel: 'sms' });
    // The SDK types Status as Twilio's two; a caller can send any text.
    for (const status of ['approved', 'pending', 'expired', 'CANCELED'] as 'approved'[]) {
      const err = await assertRestError(svc.verify.verifications(sent.sid).update({ status }), 400, 60200);
      assert.match(err.message, /^Invalid parameter: Status/);
    }
    assert.equal((await svc.verify.verifications(sent.sid).fetch()).status, 'pending');
  });

  test('fetch: an unknown SID, a number with no verification, or an odd name is 404 20404', async () => {
    for (const sid of [`VE${'0'.repeat(31)}2`, '+61412349198', 'whatever', `VE${'f'.repeat(32)}`]) {
      const err = await assertRestError(svc.verify.verifications(sid).fetch(), 404, 20404);
      // Twilio's words: the resource's path below the version.
      assert.match(
        err.message,
        /^The requested resource \/Services\/VA[0-9a-f]{32}\/Verifications\/\S+ was not found$/,
      );
    }
  });

  test('what the facade does not serve (Services list and CRUD, Access Tokens, Entities, Safelist, …) is 404 20404', async () => {
    const v2 = svc.client.verify.v2;
    // One at a time: each call starts as it is awaited.
    const calls: (() => Promise<unknown>)[] = [
      () => v2.services.list(),
      () => v2.services.create({ friendlyName: 'New' }),
      () => v2.services(svc.serviceSid).update({ friendlyName: 'Renamed' }),
      () => v2.services(svc.serviceSid).remove(),
      () => v2.services(svc.serviceSid).accessTokens.create({ identity: 'u', factorType: 'push' }),
      () => v2.services(svc.serviceSid).entities.list(),
      () => v2.services(svc.serviceSid).rateLimits.list(),
      () => v2.safelist.create({ phoneNumber: '+61412349113' }),
      () => v2.verificationAttempts.list(),
      () => v2.templates.list(),
    ];
    for (const call of calls) await assertRestError(call(), 404, 20404);
    assert.equal((await v2.services(svc.serviceSid).fetch()).friendlyName, 'Acme');
  });

  test('the pumping guard: the 11th number of a range in the window is 403 60410 (blocked), with Retry-After', async () => {
    const guarded = await seededService(t, { name: 'Guarded', pumpingGuard: 'default' });
    for (let i = 0; i < 10; i++) {
      await guarded.verify.verifications.create({
        to: `+61412348${String(i).padStart(3, '0')}`,
        channel: 'sms',
      });
    }
    const err = await assertRestError(
      guarded.verify.verifications.create({ to: '+61412348010', channel: 'sms' }),
      403,
      60410,
    );
    assert.match(err.message, /blocked until/);
    assert.ok(Number(guarded.client.httpClient?.lastResponse?.headers?.['retry-after']) >= 1);
    assert.equal(await outboxCount('+61412348010'), 0);
  });

  test("the number's failed-guess ceiling: its checks are 429 60202 (the right code too), its sends 429 60203", async () => {
    const ceiling = await seededService(t, { name: 'Ceiling' });
    await t.services.workspaces.setLimits(
      { workspaceId: ceiling.workspaceId, limits: { guess_limit: 2 } },
      OPERATOR,
    );
    const to = '+61412349115';
    await ceiling.verify.verifications.create({ to, channel: 'sms' });
    const [message] = await t.services.outbox.list({ to, limit: 1 });
    const code = /(\d+)\s*$/.exec(String(message?.body))?.[1] ?? '';
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 2; i++) {
      assert.equal((await ceiling.verify.verificationChecks.create({ to, code: wrong })).status, 'pending');
    }
    await assertRestError(ceiling.verify.verificationChecks.create({ to, code }), 429, 60202);
    await assertRestError(ceiling.verify.verifications.create({ to, channel: 'sms' }), 429, 60203);
  });

  test("the workspace's request limit is 429 20429 (not a send or check limit), with the RateLimit headers", async () => {
    const limited = await seededService(t, { name: 'Limited' });
    await t.services.workspaces.setLimits(
      { workspaceId: limited.workspaceId, limits: { request_limit_per_minute: 10 } },
      OPERATOR,
    );
    // The seeding fetched the service once; the window is the fake clock's, which does not move here.
    for (let i = 0; i < 9; i++) await limited.verify.fetch();
    const err = await assertRestError(
      limited.verify.verifications.create({ to: '+61412349114', channel: 'sms' }),
      429,
      20429,
    );
    assert.match(err.message, /requests a minute/);
    const headers = limited.client.httpClient?.lastResponse?.headers as Record<string, string>;
    assert.match(headers.ratelimit ?? '', /r=0/);
    assert.ok(Number(headers['retry-after']) >= 1);
    assert.equal(await outboxCount('+61412349114'), 0);
  });
});
