// Carrier status callbacks (POST /webhooks/{twilio,telnyx,vonage}/:accountId): signatures checked with each
// account's own secret over the raw body, failures applied to the account's workspace only, everything else
// acknowledged and harmless. Requests are signed by the fakes' signers (written apart from the verifiers).
import assert from 'node:assert/strict';
import { createHash, createHmac, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices, type Services } from '../../src/services.js';
import { listEvents } from '../../src/timeline/timeline.js';
import { signTelnyxWebhook } from '../fakes/telnyx.js';
import { signLikeTwilio } from '../fakes/twilio.js';
import {
  client,
  codeFor,
  openTestStore,
  seedWorkspace,
  TEST_SECRET,
  type TestStoreHandle,
} from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { assertProblem, sendOk } from '../helpers/verification.js';

const PUBLIC_URL = 'https://verify.example.com';
const FIVE_MINUTES = 5 * 60 * 1000;

type CarrierType = 'twilio' | 'telnyx' | 'vonage';
interface Callback {
  contentType: string;
  body: string;
}
interface SignOptions {
  /** Sign with someone else's secret or key. */
  wrongKey?: boolean;
  /** Signing time, ms (default: the clock's now). */
  at?: number;
}

/** What a test needs of one carrier: credentials, its callbacks, and how it signs them. */
interface CarrierCase {
  type: CarrierType;
  credentials: Record<string, unknown>;
  failed(providerId: string): Callback;
  delivered(providerId: string): Callback;
  /** The carrier's code that must reach error_message. */
  code: string;
  sign(accountId: string, callback: Callback, options: SignOptions): Record<string, string>;
}

const twilioToken = 'twilio-auth-token-0123456789abcdef';
const form = (fields: Record<string, string>): Callback => ({
  contentType: 'application/x-www-form-urlencoded',
  body: new URLSearchParams(fields).toString(),
});

function twilioCase(): CarrierCase {
  const sms = (sid: string, status: string, extra: Record<string, string> = {}) =>
    form({ AccountSid: `AC${'0'.repeat(32)}`, MessageSid: sid, MessageStatus: status, ...extra });
  return {
    type: 'twilio',
    credentials: { accountSid: `AC${'0'.repeat(32)}`, authToken: twilioToken },
    failed: (sid) => sms(sid, 'undelivered', { ErrorCode: '30003' }),
    delivered: (sid) => sms(sid, 'delivered'),
    code: '30003',
    sign(accountId, callback, options) {
      const token = options.wrongKey ? 'another-accounts-auth-token-000000' : twilioToken;
      const params = Object.fromEntries(new URLSearchParams(callback.body));
      return {
        'x-twilio-signature': signLikeTwilio(token, `${PUBLIC_URL}/webhooks/twilio/${accountId}`, params),
      };
    },
  };
}

const rawEd25519 = (key: KeyObject) =>
  key.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

function telnyxCase(clock: FakeClock): CarrierCase {
  const own = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');
  const event = (id: string, status: string, errors: unknown[] = []): Callback => ({
    contentType: 'application/json',
    body: JSON.stringify({
      data: {
        event_type: 'message.finalized',
        id: randomUUID(),
        occurred_at: new Date(clock.now()).toISOString(),
        payload: { id, to: [{ phone_number: '+61412345678', status }], errors },
        record_type: 'event',
      },
      meta: { attempt: 1 },
    }),
  });
  return {
    type: 'telnyx',
    credentials: { apiKey: 'KEY0123456789', publicKey: rawEd25519(own.publicKey) },
    failed: (id) =>
      event(id, 'delivery_failed', [
        { code: '40001', title: 'Not routable', detail: 'Destination is a landline' },
      ]),
    delivered: (id) => event(id, 'delivered'),
    code: '40001',
    sign: (_accountId, callback, options) =>
      signTelnyxWebhook(
        options.wrongKey ? other.privateKey : own.privateKey,
        callback.body,
        Math.floor((options.at ?? clock.now()) / 1000),
      ),
  };
}

const vonageSecret = 'a-vonage-signature-secret-of-32+chars';
const vonageApiKey = 'abcd1234';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** HS256 JWT as Vonage signs callbacks: iat, jti, iss, api_key, application_id and the body's SHA-256. */
function signLikeVonage(secret: string, rawBody: string, iatSeconds: number): string {
  const header = b64({ alg: 'HS256', typ: 'JWT' });
  const claims = b64({
    iat: iatSeconds,
    jti: randomUUID(),
    iss: 'Vonage',
    api_key: vonageApiKey,
    application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
    payload_hash: createHash('sha256').update(rawBody).digest('hex'),
  });
  const signature = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  return `${header}.${claims}.${signature}`;
}

function vonageCase(clock: FakeClock): CarrierCase {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const status = (uuid: string, value: string, extra: Record<string, unknown> = {}): Callback => ({
    contentType: 'application/json',
    body: JSON.stringify({
      message_uuid: uuid,
      to: '61412345678',
      from: '61491570156',
      timestamp: new Date(clock.now()).toISOString(),
      status: value,
      channel: 'sms',
      ...extra,
    }),
  });
  return {
    type: 'vonage',
    credentials: {
      apiKey: vonageApiKey,
      apiSecret: 'vonage-api-secret',
      applicationId: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      signatureSecret: vonageSecret,
    },
    failed: (uuid) =>
      status(uuid, 'rejected', {
        error: {
          type: 'https://developer.vonage.com/api-errors/messages#1050',
          title: 'Number barred',
          detail: 'The number you are trying to submit to is blacklisted',
        },
      }),
    delivered: (uuid) => status(uuid, 'delivered'),
    code: '1050',
    sign: (_accountId, callback, options) => ({
      authorization: `Bearer ${signLikeVonage(
        options.wrongKey ? 'someone-elses-signature-secret-0000' : vonageSecret,
        callback.body,
        Math.floor((options.at ?? clock.now()) / 1000),
      )}`,
    }),
  };
}

describe('carrier status callbacks', () => {
  const clock = fakeClock();
  let handle: TestStoreHandle;
  let services: Services;
  let app: FastifyInstance;
  let phoneSeq = 0;

  before(async () => {
    handle = await openTestStore();
    services = createServices({ store: handle.store, secret: TEST_SECRET, clock, publicUrl: PUBLIC_URL });
    app = await buildApp({ services });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await handle.close();
  });

  /** A workspace with an account of this carrier and an otp key. */
  async function workspaceWith(carrier: CarrierCase) {
    const ws = await seedWorkspace(services, { name: `${carrier.type} workspace` });
    const account = await services.carriers.addAccount(
      {
        workspaceId: ws.workspaceId,
        type: carrier.type,
        credentials: carrier.credentials,
      },
      OPERATOR,
    );
    return { ...ws, accountId: account.id, api: client(app, ws.key) };
  }

  /** A pending verification of the workspace, handed to the carrier under `providerId`. */
  async function pending(ws: { api: ReturnType<typeof client> }, providerId: string) {
    phoneSeq += 1;
    const phone = `+614123470${String(phoneSeq).padStart(2, '0')}`;
    const v = await sendOk(ws.api, { phone, channel: 'sms' });
    // Sent through the development provider; the carrier's id is what a carrier send would have kept.
    await handle.store.db
      .updateTable('verifications')
      .set({ provider_id: providerId })
      .where('id', '=', v.id)
      .execute();
    return { id: v.id, phone };
  }

  const row = (id: string) =>
    handle.store.db
      .selectFrom('verifications')
      .select(['status', 'error_code', 'error_message'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  const post = (type: string, accountId: string, callback: Callback, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: `/webhooks/${type}/${accountId}`,
      headers: { 'content-type': callback.contentType, ...headers },
      payload: callback.body,
    });

  const cases: Array<() => CarrierCase> = [twilioCase, () => telnyxCase(clock), () => vonageCase(clock)];

  for (const make of cases) {
    const carrier = make();
    describe(carrier.type, () => {
      const send = (accountId: string, callback: Callback, options: SignOptions = {}) =>
        post(carrier.type, accountId, callback, carrier.sign(accountId, callback, options));

      test('a signed failure makes the pending verification undelivered, with the carrier code', async () => {
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        const res = await send(ws.accountId, carrier.failed(providerId));
        assert.equal(res.statusCode, 204, res.body);
        const after = await row(v.id);
        assert.equal(after.status, 'undelivered');
        assert.equal(after.error_code, 'delivery_failed');
        assert.match(after.error_message ?? '', new RegExp(carrier.code));
        const events = await listEvents(handle.store.db, ws.workspaceId, v.id);
        const failures = events.filter((e) => e.kind === 'delivery_failed');
        assert.equal(failures.length, 1);
        assert.equal(failures[0]?.detail.provider_id, providerId);
      });

      test('unsigned, tampered, stale or wrongly keyed: refused (403; unsigned Vonage 503), nothing changes', async () => {
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        const failed = carrier.failed(providerId);
        const signed = carrier.sign(ws.accountId, failed, {});
        const tampered = { ...failed, body: failed.body.replace(carrier.code, '99999') };
        const attempts: Array<[string, () => Promise<LightMyRequestResponse>]> = [
          ['unsigned', () => post(carrier.type, ws.accountId, failed)],
          ['tampered', () => post(carrier.type, ws.accountId, tampered, signed)],
          ['wrong key', () => send(ws.accountId, failed, { wrongKey: true })],
        ];
        // Twilio's scheme has no timestamp; the other two refuse what was signed over five minutes ago.
        if (carrier.type !== 'twilio') {
          attempts.push([
            'stale',
            () => send(ws.accountId, failed, { at: clock.now() - FIVE_MINUTES - 1000 }),
          ]);
        }
        for (const [label, attempt] of attempts) {
          // Vonage may send its own callback unsigned after an internal error, and retries only on a 5xx.
          if (label === 'unsigned' && carrier.type === 'vonage') {
            assertProblem(await attempt(), 503, 'unavailable', undefined, label);
            continue;
          }
          assertProblem(await attempt(), 403, 'invalid_signature', undefined, label);
        }
        assert.deepEqual(await row(v.id), { status: 'pending', error_code: null, error_message: null });
      });

      test('a signed report naming a delivery with NUL in its id: acknowledged (204), nothing changes', async () => {
        // No verification can have such an id (PostgreSQL cannot even look one up): the report is about
        // nothing of ours, like one with an unknown id, and the carrier need not send it again.
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        for (const odd of [`${providerId}\u0000`, `${providerId}\ud800`]) {
          const res = await send(ws.accountId, carrier.failed(odd));
          assert.equal(res.statusCode, 204, res.body);
        }
        assert.deepEqual(await row(v.id), { status: 'pending', error_code: null, error_message: null });
      });

      test('an unknown account, or an account of another carrier: 404', async () => {
        const ws = await workspaceWith(carrier);
        const failed = carrier.failed('whatever');
        assertProblem(await send('car_unknown000000000000000000', failed), 404, 'not_found');
        const otherType = carrier.type === 'twilio' ? 'telnyx' : 'twilio';
        assertProblem(await post(otherType, ws.accountId, failed), 404, 'not_found');
      });

      test('duplicates change nothing more; delivered after failed changes nothing', async () => {
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        assert.equal((await send(ws.accountId, carrier.failed(providerId))).statusCode, 204);
        const first = await row(v.id);
        assert.equal((await send(ws.accountId, carrier.failed(providerId))).statusCode, 204);
        assert.equal((await send(ws.accountId, carrier.delivered(providerId))).statusCode, 204);
        assert.deepEqual(await row(v.id), first);
        const events = await listEvents(handle.store.db, ws.workspaceId, v.id);
        assert.equal(events.filter((e) => e.kind === 'delivery_failed').length, 1);
      });

      test('copies of one failure arriving at once: applied exactly once', async () => {
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        const copies = await Promise.all(
          Array.from({ length: 6 }, () => send(ws.accountId, carrier.failed(providerId))),
        );
        for (const res of copies) assert.equal(res.statusCode, 204);
        assert.equal((await row(v.id)).status, 'undelivered');
        const events = await listEvents(handle.store.db, ws.workspaceId, v.id);
        assert.equal(events.filter((e) => e.kind === 'delivery_failed').length, 1);
      });

      test('delivered, or an unknown provider id: acknowledged, nothing changes', async () => {
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        assert.equal((await send(ws.accountId, carrier.delivered(providerId))).statusCode, 204);
        assert.equal((await send(ws.accountId, carrier.failed(`unknown-${randomUUID()}`))).statusCode, 204);
        assert.deepEqual(await row(v.id), { status: 'pending', error_code: null, error_message: null });
      });

      test('a failure after the code was verified leaves it verified', async () => {
        const ws = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(ws, providerId);
        const code = await codeFor(services, v.phone);
        const check = await ws.api.check({ verification_id: v.id, code });
        assert.equal(check.statusCode, 200, check.body);
        assert.equal((await send(ws.accountId, carrier.failed(providerId))).statusCode, 204);
        assert.equal((await row(v.id)).status, 'verified');
        // The late failure is still on the timeline, for support.
        const events = await listEvents(handle.store.db, ws.workspaceId, v.id);
        const late = events.find((e) => e.kind === 'delivery_failed');
        assert.equal(late?.detail.status, 'verified');
      });

      test("a provider id of another workspace's verification changes nothing", async () => {
        const mine = await workspaceWith(carrier);
        const theirs = await workspaceWith(carrier);
        const providerId = `${carrier.type}-${randomUUID()}`;
        const v = await pending(theirs, providerId);
        assert.equal((await send(mine.accountId, carrier.failed(providerId))).statusCode, 204);
        assert.deepEqual(await row(v.id), { status: 'pending', error_code: null, error_message: null });
      });
    });
  }

  describe('per carrier', () => {
    test('Twilio: the URL is PUBLIC_URL, never the Host header', async () => {
      const carrier = twilioCase();
      const ws = await workspaceWith(carrier);
      const providerId = `SM${randomUUID().replaceAll('-', '')}`;
      const v = await pending(ws, providerId);
      const failed = carrier.failed(providerId);
      const params = Object.fromEntries(new URLSearchParams(failed.body));
      const asHost = signLikeTwilio(
        twilioToken,
        `http://evil.example/webhooks/twilio/${ws.accountId}`,
        params,
      );
      const res = await post('twilio', ws.accountId, failed, {
        host: 'evil.example',
        'x-twilio-signature': asHost,
      });
      assertProblem(res, 403, 'invalid_signature');
      assert.equal((await row(v.id)).status, 'pending');
    });

    test('Telnyx: a form-encoded TeXML call callback (busy) makes the call undelivered', async () => {
      const carrier = telnyxCase(clock);
      const ws = await workspaceWith(carrier);
      const callSid = `v3:${randomUUID()}`;
      const v = await pending(ws, callSid);
      const callback = form({ CallSid: callSid, CallStatus: 'busy', AccountSid: randomUUID() });
      const res = await post('telnyx', ws.accountId, callback, carrier.sign(ws.accountId, callback, {}));
      assert.equal(res.statusCode, 204, res.body);
      const after = await row(v.id);
      assert.equal(after.status, 'undelivered');
      assert.match(after.error_message ?? '', /busy/);
    });

    test('Vonage: a voice event (unanswered) makes the call undelivered', async () => {
      const carrier = vonageCase(clock);
      const ws = await workspaceWith(carrier);
      const uuid = randomUUID();
      const v = await pending(ws, uuid);
      const callback = {
        contentType: 'application/json',
        body: JSON.stringify({ uuid, conversation_uuid: `CON-${randomUUID()}`, status: 'unanswered' }),
      };
      const res = await post('vonage', ws.accountId, callback, carrier.sign(ws.accountId, callback, {}));
      assert.equal(res.statusCode, 204, res.body);
      const after = await row(v.id);
      assert.equal(after.status, 'undelivered');
      assert.match(after.error_message ?? '', /unanswered/);
    });
  });

  describe('the routes themselves', () => {
    test("a body over 64 KiB: 413 (one over the API's 16 KiB is still read)", async () => {
      const carrier = telnyxCase(clock);
      const ws = await workspaceWith(carrier);
      const mid = { contentType: 'application/json', body: JSON.stringify({ pad: 'x'.repeat(30 * 1024) }) };
      const read = await post('telnyx', ws.accountId, mid, carrier.sign(ws.accountId, mid, {}));
      assert.equal(read.statusCode, 204, read.body);
      const callback = {
        contentType: 'application/json',
        body: JSON.stringify({ pad: 'x'.repeat(65 * 1024) }),
      };
      const res = await post('telnyx', ws.accountId, callback, carrier.sign(ws.accountId, callback, {}));
      assertProblem(res, 413, 'payload_too_large');
    });

    test('hidden from the OpenAPI document; no CORS headers', async () => {
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, unknown>;
      };
      assert.deepEqual(
        Object.keys(doc.paths).filter((p) => p.startsWith('/webhooks')),
        [],
      );
      const carrier = twilioCase();
      const ws = await workspaceWith(carrier);
      const res = await post('twilio', ws.accountId, carrier.delivered('SM1'), {
        ...carrier.sign(ws.accountId, carrier.delivered('SM1'), {}),
        origin: 'https://elsewhere.example',
      });
      assert.equal(res.statusCode, 204);
      assert.equal(
        Object.keys(res.headers).some((h) => h.startsWith('access-control-')),
        false,
      );
    });
  });
});
