// Durable delivery across processes: three real servers on one database, a carrier that fails the first hand-
// over of every code with a 503. Each server's dispatcher polls for the due retries at the same moments; every
// job must be claimed by exactly one of them, so the carrier accepts each code exactly once, and each verifies.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTwilioFake } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { twilioWorkspaceWithCli } from '../helpers/carrier-workspace.js';
import { cliSuiteEnv } from '../helpers/cli-setup.js';
import { eventually, quietPeriod } from '../helpers/eventually.js';
import { type ServerProcess, startServer } from '../helpers/process.js';

const { env } = cliSuiteEnv();
const PROCESSES = 3;
const CODES = 12;

test('three processes retrying failed hand-overs: each code reaches the carrier once, and verifies', async () => {
  const twilio = await startTwilioFake(TWILIO);
  const servers: ServerProcess[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await twilio.close();
  });
  const { key } = twilioWorkspaceWithCli(env, twilio.baseUrl);
  // Polling often, so the three dispatchers race for the same due jobs.
  const serverEnv = { ...env, DELIVERY_POLL_MS: '50', CARRIER_TIMEOUT_MS: '2000' };
  servers.push(...(await Promise.all(Array.from({ length: PROCESSES }, () => startServer(serverEnv)))));
  const call = async (server: ServerProcess, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Verification & { verified?: boolean };
  };
  const serverFor = (i: number) => servers[i % PROCESSES] as ServerProcess;

  const phones = Array.from({ length: CODES }, (_, i) => `+614123800${String(i).padStart(2, '0')}`);
  // Per number, so a retry of one code never takes the failure meant for another's first hand-over.
  for (const phone of phones) twilio.replyTo(phone, { kind: 'server_error', status: 503 });
  const sent = await Promise.all(
    phones.map((phone, i) => call(serverFor(i), '/v1/otp/send', { phone, channel: 'sms' })),
  );
  for (const v of sent) assert.equal(v.delivery.ok, false, 'the first hand-over of every code failed');

  await eventually(
    'every code handed over',
    async () => {
      const read = await Promise.all(sent.map((v, i) => call(serverFor(i + 1), `/v1/otp/${v.id}`)));
      return read.every((v) => v.delivery.ok);
    },
    { intervalMs: 100 },
  );
  // A little longer, for any duplicate that a race would still send: a fixed wait, as it shows none comes.
  await quietPeriod(500);

  assert.equal(twilio.accepted.length, CODES, 'the carrier accepted exactly one message per code');
  assert.deepEqual(twilio.accepted.map((r) => r.form.get('To')).sort(), [...phones].sort());
  for (const [i, v] of sent.entries()) {
    const body = twilio.accepted.find((r) => r.form.get('To') === v.phone)?.form.get('Body') ?? '';
    const code = /(\d{6})$/.exec(body)?.[1];
    const check = await call(serverFor(i + 2), '/v1/otp/check', { verification_id: v.id, code });
    assert.equal(check.verified, true, v.phone);
  }
});
