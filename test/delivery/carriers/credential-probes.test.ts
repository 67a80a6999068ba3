// "Test credentials" for the HTTP carriers, each descriptor's probe against its fake (test/fakes/): the documented
// read-only call (path, method, auth), ok with the carrier's words, wrong credentials refused with the carrier's
// documented error words, and every way of getting no usable answer reported as unreachable: a closed port, a
// carrier that never answers (the deadline), 5xx, a redirect (never followed: the credentials go nowhere else),
// a 2xx that is not the documented resource, a huge body; odd Unicode in the carrier's words comes out printable
// and bounded. No detail ever holds a credential.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { CredentialTestResult } from '../../../src/carrier-accounts/credential-test.js';
import { MAX_CARRIER_TEXT } from '../../../src/delivery/carrier-text.js';
import type { AnyCarrier } from '../../../src/delivery/carriers/descriptor.js';
import { telnyx } from '../../../src/delivery/carriers/telnyx/index.js';
import { twilio } from '../../../src/delivery/carriers/twilio/index.js';
import { vonage } from '../../../src/delivery/carriers/vonage/index.js';
import { type RecordingServer, sendJson, startRecordingServer } from '../../fakes/recording-server.js';
import { startFakeTelnyx, TELNYX_ERRORS } from '../../fakes/telnyx.js';
import { startTwilioFake } from '../../fakes/twilio.js';
import { startFakeVonage, VONAGE_BALANCE_UNAUTHORIZED } from '../../fakes/vonage.js';
import { TELNYX, TWILIO, VONAGE, VONAGE_PUBLIC_KEY } from '../../helpers/carrier-fixtures.js';

const SHORT_MS = 400;
const SECRETS = [TWILIO.authToken, TELNYX.apiKey, VONAGE.apiSecret, 'wrong-secret-value'];

function probe(
  carrier: AnyCarrier,
  credentials: Record<string, unknown>,
  baseUrl: string | undefined,
  timeoutMs = 5_000,
): Promise<CredentialTestResult> {
  assert.ok(carrier.probe, `${carrier.type} has a probe`);
  return carrier.probe(
    { id: 'car_test', workspaceId: 'ws_test', type: carrier.type, baseUrl, credentials },
    { timeoutMs },
  );
}

function assertClean(result: CredentialTestResult) {
  assert.ok(result.detail.length > 0 && result.detail.length <= MAX_CARRIER_TEXT, result.detail);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is looked for
  assert.doesNotMatch(result.detail, /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
  for (const secret of SECRETS) assert.equal(result.detail.includes(secret), false, result.detail);
}

/** A server answering every request with `answer`; its requests recorded. */
const servers: RecordingServer[] = [];
async function answering(answer: (res: ServerResponse) => void): Promise<RecordingServer> {
  const server = await startRecordingServer((_req, res) => answer(res));
  servers.push(server);
  return server;
}

/** An address where nothing listens. */
async function closedAddress(): Promise<string> {
  const server = await startRecordingServer(() => undefined);
  await server.close();
  return server.baseUrl;
}

after(() => Promise.all(servers.map((s) => s.close())));

interface Case {
  carrier: AnyCarrier;
  credentials: Record<string, unknown>;
  wrong: Record<string, unknown>;
  /** The fake, started with the right credentials. */
  start(): Promise<{
    baseUrl: string;
    requests: { method: string; path: string; headers: Record<string, unknown> }[];
    close(): Promise<void>;
  }>;
  path: string;
  okDetail: RegExp;
  refusedDetail: string;
  /** A documented success body whose words are `text` (for the odd-Unicode case). */
  successWith(text: string): unknown;
}

const CASES: Case[] = [
  {
    carrier: twilio,
    credentials: TWILIO,
    wrong: { ...TWILIO, authToken: 'wrong-secret-value' },
    start: () => startTwilioFake({ ...TWILIO, friendlyName: 'Acme Verify' }),
    path: `/2010-04-01/Accounts/${TWILIO.accountSid}.json`,
    okDetail: /^Twilio: account "Acme Verify", active$/,
    refusedDetail: 'Twilio HTTP 401 20003: Authenticate',
    successWith: (text) => ({
      sid: TWILIO.accountSid,
      friendly_name: text,
      status: 'active',
      auth_token: TWILIO.authToken,
    }),
  },
  {
    carrier: telnyx,
    credentials: TELNYX,
    wrong: { ...TELNYX, apiKey: 'wrong-secret-value' },
    start: async () => {
      const fake = await startFakeTelnyx(TELNYX.apiKey);
      return fake;
    },
    path: '/v2/balance',
    okDetail: /^Telnyx: balance 300\.00 USD, available credit 400\.00$/,
    refusedDetail: `Telnyx HTTP 401 10009: Authentication failed: ${TELNYX_ERRORS.authentication_failed.error.detail}`,
    successWith: (text) => ({ data: { record_type: 'balance', balance: text, currency: 'USD' } }),
  },
  {
    carrier: vonage,
    credentials: VONAGE,
    wrong: { ...VONAGE, apiSecret: 'wrong-secret-value' },
    start: async () => {
      const fake = await startFakeVonage({
        applicationId: VONAGE.applicationId,
        publicKey: VONAGE_PUBLIC_KEY,
        apiKey: VONAGE.apiKey,
        apiSecret: VONAGE.apiSecret,
      });
      return { baseUrl: fake.url, requests: fake.requests, close: fake.close };
    },
    path: '/account/get-balance',
    okDetail: /^Vonage: balance 10\.28 EUR, auto-reload off$/,
    refusedDetail: `Vonage HTTP 401 ${VONAGE_BALANCE_UNAUTHORIZED['error-code']}: authentication failed`,
    // Vonage's balance is a number: odd text can only come in an error's words.
    successWith: (text) => ({ value: 1.5, autoReload: false, note: text }),
  },
];

for (const c of CASES) {
  describe(`${c.carrier.label}'s credential probe`, () => {
    let fake: Awaited<ReturnType<Case['start']>>;
    before(async () => {
      fake = await c.start();
    });
    after(() => fake.close());

    test("ok: one GET of the documented path at the account's base URL, credentials in the header only", async () => {
      const before = fake.requests.length;
      const result = await probe(c.carrier, c.credentials, fake.baseUrl);
      assert.equal(result.outcome, 'ok', result.detail);
      assert.match(result.detail, c.okDetail);
      assertClean(result);
      const sent = fake.requests.slice(before);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]?.method, 'GET');
      assert.equal(sent[0]?.path, c.path);
      assert.match(String(sent[0]?.headers.authorization), /^(Basic|Bearer) /);
    });

    test("wrong credentials: refused, with the carrier's documented error words", async () => {
      const result = await probe(c.carrier, c.wrong, fake.baseUrl);
      assert.deepEqual(result, { outcome: 'refused', detail: c.refusedDetail });
    });

    test('a closed port: unreachable, naming the error', async () => {
      const result = await probe(c.carrier, c.credentials, await closedAddress());
      assert.equal(result.outcome, 'unreachable');
      assert.match(result.detail, new RegExp(`^${c.carrier.label} unreachable: ECONNREFUSED$`));
    });

    test('no answer within the deadline: unreachable, in about the deadline', async () => {
      const silent = await answering(() => undefined);
      const started = Date.now();
      const result = await probe(c.carrier, c.credentials, silent.baseUrl, SHORT_MS);
      const took = Date.now() - started;
      assert.deepEqual(result, {
        outcome: 'unreachable',
        detail: `${c.carrier.label} unreachable: no answer within ${SHORT_MS} ms`,
      });
      assert.ok(took >= SHORT_MS - 50 && took < SHORT_MS + 2_000, `${took} ms`);
    });

    test("5xx: unreachable, with the carrier's words", async () => {
      const failing = await answering((res) =>
        sendJson(res, 503, { code: 20500, message: 'Service Unavailable' }),
      );
      const result = await probe(c.carrier, c.credentials, failing.baseUrl);
      assert.equal(result.outcome, 'unreachable');
      assert.match(result.detail, new RegExp(`^${c.carrier.label} HTTP 503`));
    });

    test('a redirect is not followed: the credentials never reach where it points', async () => {
      const elsewhere = await answering((res) => sendJson(res, 200, c.successWith('elsewhere')));
      for (const status of [301, 302, 307, 308]) {
        const redirecting = await answering((res) => {
          res.writeHead(status, { location: `${elsewhere.baseUrl}${c.path}` });
          res.end();
        });
        const result = await probe(c.carrier, c.credentials, redirecting.baseUrl);
        assert.equal(result.outcome, 'unreachable', `${status}`);
        assert.match(result.detail, new RegExp(`HTTP ${status}: a redirect, not followed`));
      }
      assert.equal(elsewhere.requests.length, 0);
    });

    test('a 2xx that is not the documented answer (a wrong base URL) is not ok', async () => {
      for (const body of ['<html>Welcome to nginx</html>', '[]', '{"unrelated": true}', '']) {
        const other = await answering((res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(body);
        });
        const result = await probe(c.carrier, c.credentials, other.baseUrl);
        assert.equal(result.outcome, 'unreachable', body);
        assert.match(result.detail, /without the documented answer/);
      }
    });

    test('a huge answer is not read past the bound: unreachable, the detail short', async () => {
      const huge = await answering((res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(c.successWith('x'.repeat(2 * 1024 * 1024))));
      });
      const result = await probe(c.carrier, c.credentials, huge.baseUrl);
      assert.equal(result.outcome, 'unreachable');
      assertClean(result);
      const hugeError = await answering((res) =>
        sendJson(res, 401, {
          message: 'y'.repeat(5000),
          title: 'z'.repeat(5000),
          'error-code-label': 'w'.repeat(5000),
        }),
      );
      const refused = await probe(c.carrier, c.credentials, hugeError.baseUrl);
      assert.equal(refused.outcome, 'refused');
      assertClean(refused);
    });

    test("odd Unicode in the carrier's words comes out printable and bounded", async () => {
      const odd = `Acme\u0000\u202e\u200b\u2028 ${'é🙂'.repeat(300)}\u0007`;
      const oddOk = await answering((res) => sendJson(res, 200, c.successWith(odd)));
      const result = await probe(c.carrier, c.credentials, oddOk.baseUrl);
      assert.equal(result.outcome, 'ok', result.detail);
      assertClean(result);
      const oddError = await answering((res) =>
        sendJson(res, 403, {
          code: 20003,
          message: odd,
          errors: [{ code: '10010', title: odd }],
          title: odd,
          'error-code-label': odd,
        }),
      );
      const refused = await probe(c.carrier, c.credentials, oddError.baseUrl);
      assert.equal(refused.outcome, 'refused');
      assertClean(refused);
    });
  });
}

test("Twilio's answer carries the auth token; the detail never does", async () => {
  const leaky = await answering((res) =>
    sendJson(res, 200, {
      sid: TWILIO.accountSid,
      friendly_name: 'Acme',
      status: 'active',
      auth_token: TWILIO.authToken,
    }),
  );
  const result = await probe(twilio, TWILIO, leaky.baseUrl);
  assert.equal(result.outcome, 'ok');
  assertClean(result);
});

test('Telnyx: a key without the right is refused (403 10010)', async () => {
  const fake = await startFakeTelnyx(TELNYX.apiKey);
  try {
    fake.answerWith({ kind: 'error', name: 'authorization_failed' });
    const result = await probe(telnyx, TELNYX, fake.baseUrl);
    assert.equal(result.outcome, 'refused');
    assert.match(result.detail, /^Telnyx HTTP 403 10010: Authorization failed/);
  } finally {
    await fake.close();
  }
});

test("without a base URL, each probe goes to the carrier's documented API host", async () => {
  const urls: string[] = [];
  const recordingFetch = (async (url: string | URL | Request) => {
    urls.push(String(url));
    throw new TypeError('fetch failed');
  }) as typeof fetch;
  for (const carrier of [twilio, telnyx, vonage]) {
    assert.ok(carrier.probe);
    const result = await carrier.probe(
      {
        id: 'car_x',
        workspaceId: 'ws_x',
        type: carrier.type,
        baseUrl: undefined,
        credentials: { ...TWILIO, ...TELNYX, ...VONAGE },
      },
      { timeoutMs: 1000, fetch: recordingFetch },
    );
    assert.equal(result.outcome, 'unreachable');
  }
  assert.deepEqual(urls, [
    `https://api.twilio.com/2010-04-01/Accounts/${TWILIO.accountSid}.json`,
    'https://api.telnyx.com/v2/balance',
    'https://rest.nexmo.com/account/get-balance',
  ]);
});
