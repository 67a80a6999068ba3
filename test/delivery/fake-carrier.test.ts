// A carrier is one folder: "Pigeon Post", a carrier described in one test file (test/fakes/fake-carrier.ts) and
// registered through createServices({ carrierTypes }), works everywhere the built-in carriers do, with no other
// source file naming it: the CLI adds its account with its own options, the API sends SMS and voice through
// its adapter, its signed status callback is answered at /webhooks/pigeon/:accountId (a failure makes the
// verification undelivered, a bad signature gets 403), and the dashboard's add-carrier form shows its fields.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { main } from '../../src/cli/main.js';
import { BUILT_IN_CARRIERS } from '../../src/delivery/carriers/index.js';
import { pigeon, pigeonSignature } from '../fakes/fake-carrier.js';
import { type RecordingServer, startRecordingServer } from '../fakes/recording-server.js';
import type { Verification } from '../helpers/api-types.js';
import {
  type Client,
  client,
  createTestApp,
  json,
  seedWorkspace,
  TEST_SECRET,
  type TestApp,
} from '../helpers/app.js';
import { signedIn } from '../helpers/dashboard.js';

const CARRIERS = [...BUILT_IN_CARRIERS, pigeon];
const SENDER = '+61491570156';
const CREDENTIALS = {
  loftId: 'loft-north',
  apiToken: 'pigeon-api-token-0123456789',
  signingSecret: 'coo-coo-secret',
};

/**
 * Runs the CLI in-process with the extra carrier, on the test app's database: its exit code and what it wrote.
 * Writes still reach the real streams too (the test runner reads this process's stdout).
 */
async function cli(t: TestApp, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dir, PHONE_VERIFY_SECRET: TEST_SECRET };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    const code = await main(args, CARRIERS);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('a carrier registered from one file (Pigeon Post)', () => {
  let t: TestApp;
  let loft: RecordingServer;
  let api: Client;
  let workspaceId: string;
  let accountId: string;
  let sent = 0;

  before(async () => {
    loft = await startRecordingServer((_req, res) => {
      sent += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: `pigeon-${sent}` }));
    });
    t = await createTestApp({ carrierTypes: CARRIERS });
    const seeded = await seedWorkspace(t.services, { numbers: [] });
    workspaceId = seeded.workspaceId;
    api = client(t.app, seeded.key);
  });
  after(async () => {
    await t.close();
    await loft.close();
  });

  test('carrier add --type pigeon takes its own options through the CLI; its rules refuse by option name', async () => {
    const refused = await cli(t, [
      'carrier',
      'add',
      '--workspace',
      workspaceId,
      '--type',
      'pigeon',
      '--loft-id',
      'north',
      '--api-token',
      CREDENTIALS.apiToken,
      '--signing-secret',
      CREDENTIALS.signingSecret,
    ]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--loft-id: must start with loft-/);
    const missing = await cli(t, [
      'carrier',
      'add',
      '--workspace',
      workspaceId,
      '--type',
      'pigeon',
      '--loft-id',
      'loft-x',
    ]);
    assert.match(missing.stderr, /--api-token: is required for a pigeon account/);

    const added = await cli(t, [
      'carrier',
      'add',
      '--workspace',
      workspaceId,
      '--type',
      'pigeon',
      '--loft-id',
      CREDENTIALS.loftId,
      '--api-token',
      CREDENTIALS.apiToken,
      '--signing-secret',
      CREDENTIALS.signingSecret,
      '--base-url',
      loft.baseUrl,
      '--json',
    ]);
    assert.equal(added.code, 0, added.stderr);
    const account = JSON.parse(added.stdout) as { id: string; type: string };
    assert.equal(account.type, 'pigeon');
    assert.ok(!added.stdout.includes(CREDENTIALS.apiToken));
    accountId = account.id;
    await t.services.workspaces.addNumber({ workspaceId, number: SENDER, carrierId: accountId }, OPERATOR);

    const help = await cli(t, ['carrier', 'add', '--help']);
    assert.match(help.stdout, /--type twilio\|telnyx\|vonage\|smpp\|pigeon/);
    assert.match(help.stdout, /^ +pigeon {2}--loft-id ID --api-token TOKEN --signing-secret SECRET$/m);
  });

  test('SMS and voice go through its adapter; the code it carried verifies', async () => {
    const sms = json<Verification>(await api.send({ phone: '+61412345101', channel: 'sms' }));
    assert.equal(sms.delivery.ok, true);
    assert.equal(sms.delivery.provider_id, `pigeon-${sent}`);
    const request = loft.requests.at(-1);
    assert.ok(request);
    assert.equal(request.path, `/lofts/${CREDENTIALS.loftId}/send`);
    assert.equal(request.headers.authorization, `Bearer ${CREDENTIALS.apiToken}`);
    const body = request.json as {
      to: string;
      from: string;
      channel: string;
      text: string;
      callback: string;
    };
    assert.deepEqual([body.to, body.from, body.channel], ['+61412345101', SENDER, 'sms']);
    assert.match(body.callback, new RegExp(`/webhooks/pigeon/${accountId}$`));
    const code = /(\d+)\s*$/.exec(body.text)?.[1] ?? '';
    assert.equal(json(await api.check({ verification_id: sms.id, code })).verified, true);

    const voice = json<Verification>(await api.send({ phone: '+61412345102', channel: 'voice' }));
    assert.equal(voice.delivery.ok, true);
    const call = loft.requests.at(-1)?.json as { channel: string; script: { steps: unknown[] } };
    assert.equal(call.channel, 'voice');
    assert.ok(call.script.steps.some((s) => typeof s === 'object' && s !== null && 'digits' in s));
  });

  test('its signed status callback: a failure makes the verification undelivered; a bad signature is 403', async () => {
    const v = json<Verification>(await api.send({ phone: '+61412345103', channel: 'sms' }));
    const providerId = v.delivery.provider_id ?? '';
    const callback = (payload: object, signature?: string) => {
      const rawBody = JSON.stringify(payload);
      return t.app.inject({
        method: 'POST',
        url: `/webhooks/pigeon/${accountId}`,
        headers: {
          'content-type': 'application/json',
          'x-pigeon-signature': signature ?? pigeonSignature(CREDENTIALS.signingSecret, rawBody),
        },
        payload: rawBody,
      });
    };
    const lost = { id: providerId, state: 'lost', reason: 'hawk' };

    assert.equal(
      (await callback(lost, pigeonSignature('another-secret', JSON.stringify(lost)))).statusCode,
      403,
    );
    assert.equal(json<Verification>(await api.get(v.id)).status, 'pending');

    const unknown = await t.app.inject({
      method: 'POST',
      url: '/webhooks/pigeon/car_unknown',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(unknown.statusCode, 404);

    assert.equal((await callback({ id: providerId, state: 'landed' })).statusCode, 204);
    assert.equal(json<Verification>(await api.get(v.id)).status, 'pending');
    assert.equal((await callback(lost)).statusCode, 204);
    const after = json<Verification>(await api.get(v.id));
    assert.equal(after.status, 'undelivered');
    assert.match(after.delivery.error_message ?? '', /^Pigeon Post lost: hawk/);
  });

  test("the dashboard's Carriers page offers its add form with its fields, and lists the account", async () => {
    const browser = await signedIn(t.app, t.services, { workspaceIds: [workspaceId] });
    const page = await browser.get('/dashboard/carriers');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<details id="add-pigeon"/);
    assert.match(page.body, /Pigeon Post account/);
    for (const name of ['loft_id', 'api_token', 'signing_secret']) {
      assert.match(page.body, new RegExp(`id="add-pigeon-${name}" name="${name}"`));
    }
    assert.match(page.body, /The loft your pigeons fly from\./);
    assert.match(
      page.body,
      /Give it to your loft keeper\./,
      'the callback hint of the account the CLI added',
    );
    assert.ok(page.body.includes(`/webhooks/pigeon/${accountId}`));
    assert.ok(!page.body.includes(CREDENTIALS.apiToken));

    const added = await browser.post('/dashboard/carriers', {
      type: 'pigeon',
      loft_id: 'loft-south',
      api_token: 'another-pigeon-token',
      signing_secret: 'another-coo',
    });
    assert.equal(added.statusCode, 302, added.body.slice(0, 500));
    const accounts = await t.services.carriers.listAccounts(workspaceId);
    assert.equal(accounts.filter((a) => a.type === 'pigeon').length, 2);
  });
});
