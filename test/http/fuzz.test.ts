// Fuzz (issue 11): whatever arrives at the API, the webhooks or the key headers, the answer is a success or a 4xx
// problem (RFC 9457, a code of the catalogue), never a 5xx or a hang, and the service still answers after. Bodies
// mix random types, Unicode (NUL, lone surrogates, full-width digits), numbers past a double, deep nesting and
// giant strings (test/helpers/fuzz-inputs.ts); paths carry odd ids, raw bytes and bad percent-encoding. Runs are
// bounded and the seed is fixed (FUZZ_SEED overrides it): a failure prints the seed, the path and the shrunk
// counterexample, and replays exactly. Each property also shows it reached the operations, not only validation.
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { LIMIT_RANGES } from '../../src/workspaces/service.js';
import { client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import {
  type Body,
  bodyOf,
  CHECK_FIELDS,
  contentType,
  country,
  digitLike,
  fairSend,
  mobile,
  oddChar,
  optional,
  payloadOf,
  phone,
  SEND_FIELDS,
  segment,
  text,
  value,
} from '../helpers/fuzz-inputs.js';

const SEED = Number(process.env.FUZZ_SEED ?? 1103);
/** Per property; FUZZ_RUNS raises it for a longer hunt (a few thousand take minutes). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const options = (numRuns: number) => ({ seed: SEED, numRuns });

/** Every answer: 2xx or 4xx; an error is a problem body of the catalogue whose status is the response's. */
function assertAnswered(res: LightMyRequestResponse, request: string): void {
  const context = `${request.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  const success = res.statusCode >= 200 && res.statusCode < 300;
  assert.ok(success || (res.statusCode >= 400 && res.statusCode < 500), context);
  if (success) {
    if (res.statusCode !== 204) JSON.parse(res.body);
    return;
  }
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, context);
  const problem = JSON.parse(res.body) as { status: number; code: string; detail: unknown };
  assert.equal(problem.status, res.statusCode, context);
  assert.equal(
    ERROR_CATALOGUE[problem.code as keyof typeof ERROR_CATALOGUE]?.status,
    res.statusCode,
    context,
  );
  assert.equal(typeof problem.detail, 'string', context);
}

type Headers = Record<string, string | string[] | undefined>;

describe('fuzz: every input gets a success or a 4xx problem, never a 5xx', { timeout: 600_000 }, () => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  /** Ids of verifications sent during the run, so checks, reads and cancels meet real ones too. */
  const knownIds: string[] = [];
  const knownId = fc.nat().map((i) => knownIds[i % Math.max(knownIds.length, 1)] ?? 'ver_unknown');
  /** Answers per status in the current property: proof that it got past validation. */
  let statuses = new Map<number, number>();

  function inject(method: 'GET' | 'POST', url: string, headers: Headers, body?: Body) {
    const given = Object.entries(headers).filter((e): e is [string, string | string[]] => e[1] !== undefined);
    return t.app.inject({
      method,
      url,
      headers: Object.fromEntries(given),
      payload: body === undefined ? undefined : payloadOf(body),
    });
  }

  async function answered(request: string, res: Promise<LightMyRequestResponse>) {
    const response = await res;
    assertAnswered(response, request);
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
    return response;
  }

  const api = (method: 'GET' | 'POST', url: string, body?: Body, type?: string) =>
    answered(
      `${method} ${url} ${body ? payloadOf(body) : ''}`,
      inject(method, url, { authorization: `Bearer ${key}`, 'content-type': type }, body),
    );

  /** The property reached the operations (some successes), and the service still works after it. */
  async function assertReachedAndStillServing(ctx: TestContext, success: number): Promise<void> {
    const tally = JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)));
    ctx.diagnostic(`answers by status: ${tally}`);
    assert.ok((statuses.get(success) ?? 0) > 0, `no ${success} among ${tally}`);
    statuses = new Map();
    const c = client(t.app, key);
    assert.equal((await c.ping()).statusCode, 200);
    const sent = await c.send({ phone: '+61412345678', channel: 'sms' });
    assert.equal(sent.statusCode, 201, sent.body);
    assert.equal((await c.get(sent.json<{ id: string }>().id)).statusCode, 200);
  }

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Fuzz Co' });
    key = ws.key;
    // As `workspace limits` does: the most sends per number and requests a minute the service allows, so that
    // the fuzz reaches the operations instead of a 429 (still an acceptable answer where it happens).
    await t.services.workspaces.setLimits(
      {
        workspaceId: ws.workspaceId,
        limits: {
          send_limit: LIMIT_RANGES.send_limit.max,
          send_window_seconds: LIMIT_RANGES.send_window_seconds.min,
          request_limit_per_minute: LIMIT_RANGES.request_limit_per_minute.max,
        },
      },
      OPERATOR,
    );
    const account = await t.services.carriers.addAccount(
      {
        workspaceId: ws.workspaceId,
        type: 'twilio',
        credentials: { accountSid: `AC${'0'.repeat(32)}`, authToken: 'twilio-auth-token-0123456789abcdef' },
      },
      OPERATOR,
    );
    accountId = account.id;
  });
  after(() => t.close());

  test('POST /v1/otp/send', async (ctx) => {
    await fc.assert(
      fc.asyncProperty(bodyOf(fairSend, SEND_FIELDS), contentType, async (body, type) => {
        const res = await api('POST', '/v1/otp/send', body, type);
        if (res.statusCode === 201) knownIds.push(res.json<{ id: string }>().id);
      }),
      options(RUNS),
    );
    await assertReachedAndStillServing(ctx, 201);
  });

  test('POST /v1/otp/check', async (ctx) => {
    const code = fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^\d{4,8}$/) }, digitLike, text);
    const fairCheck = fc.oneof(
      fc.record({ verification_id: knownId, code }),
      fc.record({ phone: mobile, code, country: optional(country) }),
    );
    const odd = fc.oneof(
      fc.record({
        verification_id: fc.oneof(
          knownId.map((id) => `${id}\u0000`),
          text,
        ),
        code,
      }),
      fc.record({ phone, code }),
    );
    await fc.assert(
      fc.asyncProperty(bodyOf(fc.oneof(fairCheck, odd), CHECK_FIELDS), contentType, async (body, type) => {
        await api('POST', '/v1/otp/check', body, type);
      }),
      options(RUNS),
    );
    await assertReachedAndStillServing(ctx, 200);
  });

  test('GET /v1/otp/{id} and POST /v1/otp/{id}/cancel', async (ctx) => {
    const id = fc.oneof(
      { weight: 3, arbitrary: knownId },
      knownId.map((known) => `${known.slice(0, -1)}%00`),
      knownId.map((known) =>
        known.replace(/\d/g, (d) => encodeURIComponent(String.fromCharCode(0xff10 + +d))),
      ),
      segment,
    );
    const cancelBody = optional(bodyOf(fc.constant({}), []));
    await fc.assert(
      fc.asyncProperty(id, fc.boolean(), cancelBody, contentType, async (path, cancel, body, type) => {
        if (cancel) await api('POST', `/v1/otp/${path}/cancel`, body, body && type);
        else await api('GET', `/v1/otp/${path}`);
      }),
      options(RUNS),
    );
    await assertReachedAndStillServing(ctx, 200);
  });

  test('the key headers (Authorization, X-API-Key) on ping, send and read', async (ctx) => {
    const validKey = fc.constant(null).map(() => key);
    const keyish = fc.oneof(
      { weight: 4, arbitrary: validKey },
      fc
        .tuple(validKey, fc.nat(), oddChar)
        .map(([k, i, c]) => k.slice(0, i % k.length) + c + k.slice((i % k.length) + 1)),
      fc.tuple(validKey, fc.nat()).map(([k, i]) => k.slice(0, i % k.length)),
      validKey.map((k) => k.toUpperCase()),
      validKey.map((k) => `${k}${k}`),
      validKey.map((k) => ` \t${k} `),
      fc.constantFrom('pv_live_', 'pv_live_00000000000000000000000000000000000000', ''),
      text,
    );
    const scheme = fc.oneof(
      { weight: 4, arbitrary: fc.constant('Bearer ') },
      fc.constantFrom('bearer ', 'BEARER  ', 'Bearer\t', 'Basic ', 'Token ', '', 'Bearer'),
    );
    const authorization = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(scheme, keyish).map(([s, k]) => `${s}${k}`) },
      text,
    );
    const headers = fc.oneof(
      { weight: 3, arbitrary: fc.record({ authorization }) },
      { weight: 2, arbitrary: fc.record({ 'x-api-key': keyish }) },
      fc.record(
        {
          authorization: fc.oneof(authorization, fc.array(authorization, { minLength: 2, maxLength: 3 })),
          'x-api-key': fc.oneof(keyish, fc.array(keyish, { minLength: 2, maxLength: 3 })),
        },
        { requiredKeys: [] },
      ),
    );
    const route = fc.constantFrom('/v1/ping', '/v1/ping?x=%00', '/v1/otp/send', '/v1/otp/ver_unknown');
    await fc.assert(
      fc.asyncProperty(headers, route, async (given: Headers, url) => {
        const send = url === '/v1/otp/send';
        const body: Body = { json: { phone: '+61412345679', channel: 'sms' } };
        const type = send ? 'application/json' : undefined;
        await answered(
          `${url} ${JSON.stringify(given)}`,
          inject(send ? 'POST' : 'GET', url, { ...given, 'content-type': type }, send ? body : undefined),
        );
      }),
      options(RUNS),
    );
    await assertReachedAndStillServing(ctx, 200);
  });

  test('POST /webhooks/{carrier}/{account id}, unsigned or wrongly signed', async (ctx) => {
    const carrier = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...t.services.carrierTypes.map((c) => c.type)) },
      segment,
    );
    const account = fc.oneof(
      { weight: 2, arbitrary: fc.constant(null).map(() => accountId) },
      fc.constant(null).map(() => `${accountId}%00`),
      segment,
    );
    const form = fc
      .dictionary(fc.constantFrom('MessageSid', 'MessageStatus', 'ErrorCode', 'AccountSid'), text, {
        maxKeys: 4,
      })
      .map((fields): Body => ({ raw: new URLSearchParams(fields).toString() }));
    const body = fc.oneof(form, bodyOf(fc.dictionary(text, value, { maxKeys: 4 }), ['data', 'payload']));
    const type = fc.oneof(contentType, fc.constant('application/x-www-form-urlencoded'));
    const signature = fc.record(
      {
        'x-twilio-signature': text,
        'telnyx-signature-ed25519': text,
        'telnyx-timestamp': fc.oneof(digitLike, text),
        authorization: text,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(carrier, account, body, type, signature, async (kind, id, payload, ct, signed) => {
        const url = `/webhooks/${kind}/${id}`;
        await answered(
          `${url} ${payloadOf(payload)}`,
          inject('POST', url, { 'content-type': ct, ...signed }, payload),
        );
      }),
      options(RUNS),
    );
    // Signed by nobody, every callback to the real account is refused; reaching that check is the proof here.
    await assertReachedAndStillServing(ctx, 403);
  });
});
