// Issue 11, item 11: changing the server secret, with real server and CLI processes on one database. A carrier
// account and a delivery job are sealed, and a code hashed, under secret A. Started with B alone, the server
// refuses, saying what to do; with B and PHONE_VERIFY_PREVIOUS_SECRET=A it serves (the job is delivered, its code
// checks, the status webhook is accepted); `secret reseal` moves the account to B, after which B alone serves.
// A callback for an account sealed under a secret the server does not have answers 503, never 500.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SECRET_FILE } from '../../src/secret.js';
import { signLikeTwilio, startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import { TEST_SECRET } from '../helpers/app.js';
import { TWILIO, twilioArgs } from '../helpers/carrier-fixtures.js';
import { twilioWorkspaceWithCli } from '../helpers/carrier-workspace.js';
import { assertCleanFailure, callServer, cliSuiteEnv, createWorkspace } from '../helpers/cli-setup.js';
import { eventually } from '../helpers/eventually.js';
import {
  cliJson,
  runCli,
  type ServerProcess,
  serveExpectingRefusal,
  startServer,
} from '../helpers/process.js';

const SECRET_A = TEST_SECRET;
const SECRET_B = 'the-new-secret-the-new-secret-0123456789';
const SECRET_C = 'someone-elses-secret-someone-elses-0123';
const PUBLIC_URL = 'http://127.0.0.1:9';
const PHONE = '+61412340001';

interface ResealJson {
  previous_secret: boolean;
  carrier_accounts: { total: number; resealed: number; unreadable: string[] };
  delivery_jobs: { total: number; resealed: number; unreadable: number };
  webhook_secrets: { total: number; resealed: number; unreadable: number };
}

/** A Twilio status callback for a message, signed with the account's auth token: the server's answer. */
async function statusCallback(
  server: ServerProcess,
  accountId: string,
  messageSid: string,
): Promise<Response> {
  const form = { MessageSid: messageSid, MessageStatus: 'delivered' };
  return fetch(`${server.url}/webhooks/twilio/${accountId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signLikeTwilio(
        TWILIO.authToken,
        `${PUBLIC_URL}/webhooks/twilio/${accountId}`,
        form,
      ),
    },
    body: new URLSearchParams(form).toString(),
  });
}

function assertNoSecretIn(text: string): void {
  for (const secret of [SECRET_A, SECRET_B, SECRET_C, TWILIO.authToken])
    assert.equal(text.includes(secret), false, `a secret was printed: ${text}`);
}

describe('changing the server secret', () => {
  const { env } = cliSuiteEnv();
  const withB = { ...env, PHONE_VERIFY_SECRET: SECRET_B, PUBLIC_URL };
  const withBAndA = { ...withB, PHONE_VERIFY_PREVIOUS_SECRET: SECRET_A };
  let twilio: TwilioFake;
  let ws = '';
  let accountId = '';
  let key = '';
  let pendingId = '';
  const servers: ServerProcess[] = [];
  const api = (server: ServerProcess) => ({
    send: (phone: string) => callServer(server.url, key, 'POST', '/v1/otp/send', { phone, channel: 'sms' }),
    get: async (id: string) =>
      (await callServer(server.url, key, 'GET', `/v1/otp/${id}`)).body as unknown as Verification,
    check: (id: string, code: string) =>
      callServer(server.url, key, 'POST', '/v1/otp/check', { verification_id: id, code }),
  });
  /** The code in the newest SMS the Twilio double accepted. */
  const lastCode = () => /(\d{6})$/.exec(twilio.accepted.at(-1)?.form.get('Body') ?? '')?.[1] ?? '';

  before(async () => {
    twilio = await startTwilioFake(TWILIO);
    ({ workspaceId: ws, accountId, key } = twilioWorkspaceWithCli(env, twilio.baseUrl));
    // Under secret A: a send whose hand-over fails for now, so its delivery job (the code sealed) stays behind.
    const serverA = await startServer({ ...env, PUBLIC_URL, DELIVERY_POLL_MS: '60000' });
    servers.push(serverA);
    twilio.reply({ kind: 'server_error', status: 503 });
    const sent = await api(serverA).send(PHONE);
    assert.equal(sent.status, 201);
    assert.equal((sent.body.delivery as { ok: boolean }).ok, false);
    pendingId = String(sent.body.id);
    assert.equal(await serverA.stop(), 0);
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await twilio.close();
  });

  test('with a secret that does not open the carrier account, the server refuses to start and says what to do', async () => {
    // An empty PHONE_VERIFY_PREVIOUS_SECRET is unset, like every empty variable.
    for (const unopened of [withB, { ...withB, PHONE_VERIFY_PREVIOUS_SECRET: '' }]) {
      const refused = await serveExpectingRefusal(unopened);
      assert.equal(refused.started, false, 'the server started');
      assertCleanFailure(refused, /Not starting: the credentials of 1 carrier account/);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, new RegExp(accountId));
      assert.match(refused.stderr, /do not open with the server secret \(PHONE_VERIFY_SECRET\)/);
      assert.match(refused.stderr, /Restore the secret they were sealed with/);
      assert.match(
        refused.stderr,
        /set PHONE_VERIFY_PREVIOUS_SECRET to it, start, and run phone-verify secret reseal/,
      );
      assert.match(refused.stderr, /phone-verify carrier rotate/);
      assertNoSecretIn(refused.stderr);
    }
  });

  test('a previous secret that is not the old one does not help: still refused, naming both', async () => {
    const refused = await serveExpectingRefusal({ ...withB, PHONE_VERIFY_PREVIOUS_SECRET: SECRET_C });
    assert.equal(refused.started, false, 'the server started');
    assertCleanFailure(refused, /\(PHONE_VERIFY_SECRET nor PHONE_VERIFY_PREVIOUS_SECRET\)/);
    assertNoSecretIn(refused.stderr);
  });

  test('with the old secret as PHONE_VERIFY_PREVIOUS_SECRET it serves: the job sealed under it is delivered, its code checks, the callback is accepted', async () => {
    const server = await startServer({ ...withBAndA, DELIVERY_POLL_MS: '100' });
    servers.push(server);
    assert.match(
      server.stderr(),
      /1 carrier account and 1 delivery job are still sealed under PHONE_VERIFY_PREVIOUS_SECRET/,
    );
    const delivered = await eventually('the retried hand-over', async () => {
      const v = await api(server).get(pendingId);
      return v.delivery.ok && v;
    });
    const code = lastCode();
    assert.equal(code.length, 6);
    // The code was hashed under A; B checks new codes, A still checks this one.
    const checked = await api(server).check(pendingId, code);
    assert.equal(checked.status, 200);
    assert.equal(checked.body.verified, true);
    const callback = await statusCallback(server, accountId, delivered.delivery.provider_id ?? '');
    assert.equal(callback.status, 204);
  });

  test('secret reseal, while the server runs, seals the account again under the new secret', () => {
    const report = cliJson<ResealJson>(['secret', 'reseal'], withBAndA);
    assert.deepEqual(report, {
      previous_secret: true,
      carrier_accounts: { total: 1, resealed: 1, unreadable: [] },
      delivery_jobs: { total: 0, resealed: 0, unreadable: 0 },
      webhook_secrets: { total: 0, resealed: 0, unreadable: 0 },
    });
    // Nothing is left for a second run.
    assert.equal(cliJson<ResealJson>(['secret', 'reseal'], withBAndA).carrier_accounts.resealed, 0);
    const plain = runCli(['secret', 'reseal'], withBAndA);
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /carrier accounts\s+1 \(0 resealed\)/);
    assert.match(plain.stderr, /Keep PHONE_VERIFY_PREVIOUS_SECRET set 15 minutes/);
    assertNoSecretIn(plain.stdout + plain.stderr);
  });

  test('after the reseal, the new secret alone serves: a send through the carrier, its code, its callback', async () => {
    for (const server of servers.splice(0)) await server.stop();
    const server = await startServer(withB);
    servers.push(server);
    assert.doesNotMatch(server.stderr(), /PREVIOUS_SECRET/);
    const sent = await api(server).send('+61412340002');
    assert.equal(sent.status, 201);
    const v = sent.body as unknown as Verification;
    assert.equal(v.delivery.ok, true);
    const checked = await api(server).check(v.id, lastCode());
    assert.equal(checked.body.verified, true);
    assert.equal((await statusCallback(server, accountId, v.delivery.provider_id ?? '')).status, 204);
    const again = cliJson<ResealJson>(['secret', 'reseal'], withB);
    assert.equal(again.previous_secret, false);
    assert.deepEqual(again.carrier_accounts, { total: 1, resealed: 0, unreadable: [] });
  });

  test('a callback for an account sealed under a secret this server lacks answers 503 (logged), never 500', async () => {
    const server = servers[0];
    assert.ok(server);
    // Another process, wrongly configured with its own secret, adds an account to the same database.
    const stray = cliJson<{ id: string }>(twilioArgs(ws), { ...env, PHONE_VERIFY_SECRET: SECRET_C });
    const res = await statusCallback(server, stray.id, 'SM0123');
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '60');
    const body = (await res.json()) as { code: string; detail: string };
    assert.equal(body.code, 'unavailable');
    assert.doesNotMatch(body.detail, /secret|credential|decrypt/i);
    await eventually('the logged reason', () =>
      /carrier callback refused for now: the account's credentials do not open/.test(server.stderr()),
    );
    assert.match(server.stderr(), new RegExp(stray.id));
    assertNoSecretIn(server.stderr());
    // The same answer for every later callback of that account; the server keeps serving the others.
    assert.equal((await statusCallback(server, stray.id, 'SM0124')).status, 503);
    assert.equal((await statusCallback(server, accountId, 'SM0125')).status, 204);
  });
});

describe('PHONE_VERIFY_PREVIOUS_SECRET and secret reseal, attacked', () => {
  const { dir, env } = cliSuiteEnv();
  before(() => {
    createWorkspace(env);
  });

  test('too short: refused by the server and the CLI, exit 2, without echoing it', async () => {
    const short = 'short-previous-secret';
    const bad = { ...env, PHONE_VERIFY_PREVIOUS_SECRET: short };
    const served = await serveExpectingRefusal(bad);
    assert.equal(served.started, false);
    assertCleanFailure(
      served,
      /invalid PHONE_VERIFY_PREVIOUS_SECRET: must not have fewer than 32 characters/,
    );
    assert.equal(served.status, 2);
    const cli = runCli(['secret', 'reseal', '--json'], bad);
    assertCleanFailure(cli, /invalid PHONE_VERIFY_PREVIOUS_SECRET/);
    assert.equal(cli.status, 2);
    for (const output of [served.stderr, cli.stderr]) assert.equal(output.includes(short), false);
  });

  test('the same as the current secret (configured or generated): refused, without echoing it', async () => {
    const same = { ...env, PHONE_VERIFY_PREVIOUS_SECRET: env.PHONE_VERIFY_SECRET ?? '' };
    const served = await serveExpectingRefusal(same);
    assert.equal(served.started, false);
    assertCleanFailure(
      served,
      /PHONE_VERIFY_PREVIOUS_SECRET is the same as the current secret \(PHONE_VERIFY_SECRET\)/,
    );
    const cli = runCli(['secret', 'reseal'], same);
    assertCleanFailure(cli, /is the same as the current secret/);
    // Unset PHONE_VERIFY_SECRET: the generated one, from the data directory, is the current secret.
    assert.equal(runCli(['workspace', 'list'], { ...env, PHONE_VERIFY_SECRET: '' }).status, 0);
    const generated = readFileSync(join(dir, SECRET_FILE), 'utf8').trim();
    const sameAsFile = { ...env, PHONE_VERIFY_SECRET: '', PHONE_VERIFY_PREVIOUS_SECRET: generated };
    const fromFile = await serveExpectingRefusal(sameAsFile);
    assertCleanFailure(
      fromFile,
      new RegExp(`the same as the current secret \\(${join(dir, SECRET_FILE)}\\)`),
    );
    for (const output of [served.stderr, cli.stderr, fromFile.stderr]) {
      assert.equal(output.includes(TEST_SECRET), false);
      assert.equal(output.includes(generated), false);
    }
  });

  test('secret reseal takes no arguments: the secrets come from the environment, never the command line', () => {
    const argument = runCli(['secret', 'reseal', SECRET_B], env);
    assertCleanFailure(argument, /usage: phone-verify secret reseal/);
    const option = runCli(['secret', 'reseal', '--previous-secret', SECRET_B], env);
    assertCleanFailure(option, /unknown option --previous-secret/);
    assert.equal(option.status, 2);
    // The secret typed where it does not belong is not echoed back.
    for (const refused of [argument, option]) assert.equal(refused.stderr.includes(SECRET_B), false);
    assertCleanFailure(runCli(['secret', 'rotate'], env), /unknown command "secret rotate"/);
  });

  test('with nothing sealed under a previous secret, secret reseal changes nothing and says so', () => {
    const result = runCli(['secret', 'reseal'], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /PHONE_VERIFY_PREVIOUS_SECRET is not set: nothing sealed can need resealing/);
    assert.deepEqual(cliJson<ResealJson>(['secret', 'reseal'], env), {
      previous_secret: false,
      carrier_accounts: { total: 0, resealed: 0, unreadable: [] },
      delivery_jobs: { total: 0, resealed: 0, unreadable: 0 },
      webhook_secrets: { total: 0, resealed: 0, unreadable: 0 },
    });
  });
});
