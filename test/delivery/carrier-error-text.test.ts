// What a carrier's error answer becomes in the API (GET /v1/otp/{id}, delivery.error_message) and the timeline,
// through the real adapters of Twilio, Telnyx and Vonage posting to a local server that answers as a broken proxy
// or a hostile endpoint would: an HTML page, a documented JSON error whose words are huge and full of control
// characters, a documented error in a body over 1 MiB, a 502 page. Only the carrier's documented fields reach
// error_message, printable and bounded; any other body is said as "<carrier> HTTP <status>", never copied. A
// carrier of a descriptor of its own that passes raw text through is bounded the same way (and never a 500).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import type { CarrierDescriptor } from '../../src/delivery/carriers/descriptor.js';
import { BUILT_IN_CARRIERS } from '../../src/delivery/carriers/index.js';
import { TransientDeliveryError } from '../../src/delivery/provider.js';
import { listEvents } from '../../src/timeline/timeline.js';
import { type RecordingServer, startRecordingServer } from '../fakes/recording-server.js';
import type { Verification } from '../helpers/api-types.js';
import { type Client, client, createTestApp, json, type TestApp } from '../helpers/app.js';
import { TELNYX, TWILIO, VONAGE } from '../helpers/carrier-fixtures.js';
import { fakeClock } from '../helpers/clock.js';

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** What a hostile or broken endpoint says: it must never reach error_message. */
const INTERNAL = 'internal-host-10.0.0.7 root:x:0:0';
/** Huge documented words, with a terminal escape, NUL, a line break and a bidi override. */
const DIRTY = `\u001b[2J\u0000cleared\r\nnext\u202eevil ${'A'.repeat(100_000)}`;
const HTML = `<!doctype html><html><head><title>${INTERNAL}</title></head><body><pre>${INTERNAL}</pre></body></html>`;

interface Answer {
  status: number;
  type: string;
  body: string;
}

/** A carrier descriptor of a test's own whose adapter says whatever it is told, raw. */
let noisySays: { kind: 'rejects' | 'transient'; text: string } = { kind: 'rejects', text: '' };
const noisy: CarrierDescriptor<Record<string, never>> = {
  type: 'noisy',
  label: 'Noisy',
  fields: [],
  baseUrl: false,
  channels: ['sms', 'voice'],
  callbackHint: 'None.',
  createAdapter: () => ({
    name: 'noisy',
    async send() {
      if (noisySays.kind === 'transient') throw new TransientDeliveryError(noisySays.text);
      return { ok: false, providerId: null, errorCode: 'provider_error', errorMessage: noisySays.text };
    },
  }),
};

const CARRIERS = [
  {
    type: 'twilio',
    who: 'Twilio',
    credentials: TWILIO,
    documented: (words: string) => ({ code: 21211, message: words, more_info: INTERNAL, status: 400 }),
    code: '21211',
  },
  {
    type: 'telnyx',
    who: 'Telnyx',
    credentials: TELNYX,
    documented: (words: string) => ({
      errors: [{ code: '10015', title: words, detail: words, meta: INTERNAL }],
    }),
    code: '10015',
  },
  {
    type: 'vonage',
    who: 'Vonage Messages API',
    credentials: VONAGE,
    documented: (words: string) => ({
      type: 'https://developer.nexmo.com/api-errors/messages#1020',
      title: words,
      detail: words,
      instance: INTERNAL,
    }),
    code: '1020',
  },
] as const;

describe("a carrier's error answer in error_message", () => {
  let t: TestApp;
  let endpoint: RecordingServer;
  const answers: Answer[] = [];
  const apis = new Map<string, Client>();
  const workspaces = new Map<string, string>();
  let phoneSeq = 100;

  before(async () => {
    endpoint = await startRecordingServer((_req, res) => {
      const answer = answers.shift() ?? { status: 400, type: 'text/html', body: HTML };
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    });
    // Time stands still: a transient failure's retry stays scheduled, so the test reads the pending state.
    t = await createTestApp({
      clock: fakeClock(),
      carrierTypes: [...BUILT_IN_CARRIERS, noisy],
      delivery: { random: () => 0 },
    });
    for (const { type, credentials } of [...CARRIERS, { type: 'noisy', credentials: {} }]) {
      const ws = await t.services.workspaces.createWorkspace({ name: `Acme ${type}` }, OPERATOR);
      await t.services.fraud.setSettings(ws.id, { range_limit: 1000 }, OPERATOR);
      const account = await t.services.carriers.addAccount(
        {
          workspaceId: ws.id,
          type,
          credentials,
          baseUrl: type === 'noisy' ? undefined : endpoint.baseUrl,
        },
        OPERATOR,
      );
      await t.services.workspaces.addNumber(
        {
          workspaceId: ws.id,
          number: '+61491570156',
          carrierId: account.id,
        },
        OPERATOR,
      );
      const key = await t.services.keys.createKey({ workspaceId: ws.id, name: 'backend' }, OPERATOR);
      apis.set(type, client(t.app, key.key));
      workspaces.set(type, ws.id);
    }
  });
  after(async () => {
    await t?.close();
    await endpoint?.close();
  });

  /** Sends a code through the type's account, answered with `answer`; the verification as GET /v1/otp/{id} reads it. */
  async function sendAnswered(type: string, answer?: Answer): Promise<Verification> {
    const api = apis.get(type) as Client;
    if (answer) answers.push(answer);
    const sent = await api.send({ phone: `+614123${String(phoneSeq++).padStart(5, '0')}`, channel: 'sms' });
    assert.equal(sent.statusCode, 201, sent.body.slice(0, 300));
    assert.equal(answers.length, 0, 'the answer was taken');
    const read = await api.get(json<Verification>(sent).id);
    assert.equal(read.statusCode, 200, read.body.slice(0, 300));
    return json<Verification>(read);
  }

  /** The error_message of the verification's last timeline event of `kind`. */
  async function timelineMessage(type: string, id: string, kind: string): Promise<string> {
    const events = await listEvents(t.store.db, workspaces.get(type) as string, id);
    const event = events.filter((e) => e.kind === kind).at(-1);
    assert.ok(event, `${kind} in ${events.map((e) => e.kind).join(', ')}`);
    return String((event.detail as { error_message?: unknown }).error_message);
  }

  function assertClean(message: string | null, max: number): asserts message is string {
    assert.equal(typeof message, 'string');
    const text = message as string;
    assert.ok(text.length <= max, `${text.length} characters`);
    assert.doesNotMatch(text, UNPRINTABLE, JSON.stringify(text.slice(0, 80)));
    assert.equal(text.includes(INTERNAL), false, 'the body is not echoed');
    assert.equal(text.includes('root:x'), false, 'the body is not echoed');
  }

  for (const carrier of CARRIERS) {
    const { type, who } = carrier;

    test(`${type}: an HTML page (a proxy's 400) is "${who} HTTP 400", in the API and the timeline`, async () => {
      const v = await sendAnswered(type, { status: 400, type: 'text/html', body: HTML });
      assert.equal(v.status, 'undelivered');
      assert.equal(v.delivery.error_code, 'provider_error');
      assert.equal(v.delivery.error_message, `${who} HTTP 400`);
      assert.equal(await timelineMessage(type, v.id, 'rejected'), `${who} HTTP 400`);
    });

    test(`${type}: plain text, and JSON that is not the carrier's documented error, are only their status`, async () => {
      for (const answer of [
        { status: 403, type: 'text/plain', body: `Forbidden: ${INTERNAL}\n${INTERNAL}` },
        {
          status: 404,
          type: 'application/json',
          body: JSON.stringify({ error: INTERNAL, message: [INTERNAL] }),
        },
        { status: 409, type: 'application/json', body: JSON.stringify([INTERNAL]) },
        { status: 400, type: 'application/json', body: '' },
      ]) {
        const v = await sendAnswered(type, answer);
        assert.equal(v.delivery.error_message, `${who} HTTP ${answer.status}`, answer.body.slice(0, 40));
      }
    });

    test(`${type}: a documented error with huge words full of control characters is bounded and printable`, async () => {
      const v = await sendAnswered(type, {
        status: 400,
        type: 'application/json',
        body: JSON.stringify(carrier.documented(DIRTY)),
      });
      assert.equal(v.status, 'undelivered');
      assertClean(v.delivery.error_message, 200);
      assert.ok(
        v.delivery.error_message.startsWith(`${who} HTTP 400 ${carrier.code}: [2J cleared next evil AAAA`),
        v.delivery.error_message.slice(0, 80),
      );
      assert.ok(v.delivery.error_message.endsWith('…'));
      assert.equal(await timelineMessage(type, v.id, 'rejected'), v.delivery.error_message);
    });

    test(`${type}: a documented error in a body over 1 MiB is not read: only its status`, async () => {
      const body = JSON.stringify({ ...carrier.documented('short words'), pad: 'x'.repeat(1024 * 1024) });
      const v = await sendAnswered(type, { status: 400, type: 'application/json', body });
      assert.equal(v.delivery.error_message, `${who} HTTP 400`);
    });

    test(`${type}: a 502 page is a transient failure said as "${who} HTTP 502", never its text`, async () => {
      const v = await sendAnswered(type, { status: 502, type: 'text/html', body: HTML });
      assert.equal(v.status, 'pending');
      assertClean(v.delivery.error_message, 300);
      assert.match(v.delivery.error_message, new RegExp(`failed to take the message \\(${who} HTTP 502\\)`));
      const retry = await timelineMessage(type, v.id, 'retry_scheduled');
      assertClean(retry, 300);
      assert.match(retry, new RegExp(`\\(${who} HTTP 502\\)$`));
    });
  }

  test('a provider of a descriptor of its own is bounded the same way: its raw words never pass whole (and never a 500)', async () => {
    const raw = `noisy\u0000${INTERNAL}\r\n\u202e${'z'.repeat(100_000)}`;
    noisySays = { kind: 'rejects', text: raw };
    const rejected = await sendAnswered('noisy');
    assert.equal(rejected.status, 'undelivered');
    const message = rejected.delivery.error_message ?? '';
    assert.ok(message.length <= 200, `${message.length} characters`);
    assert.doesNotMatch(message, UNPRINTABLE);
    assert.match(message, /^noisy internal-host-10\.0\.0\.7 root:x:0:0 z+…$/);
    assert.equal(await timelineMessage('noisy', rejected.id, 'rejected'), message);

    noisySays = { kind: 'transient', text: raw };
    const pending = await sendAnswered('noisy');
    assert.equal(pending.status, 'pending');
    const retry = pending.delivery.error_message ?? '';
    assert.ok(retry.length <= 300, `${retry.length} characters`);
    assert.doesNotMatch(retry, UNPRINTABLE);
    const event = await timelineMessage('noisy', pending.id, 'retry_scheduled');
    assert.ok(event.length <= 300, `${event.length} characters`);
    assert.doesNotMatch(event, UNPRINTABLE);
  });
});
