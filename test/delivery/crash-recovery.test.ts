// kill -9 between commit and hand-over (issue 5, item 6), with real processes: the server commits the
// verification and its delivery job, starts the hand-over, and dies before a byte of it reaches the carrier (a
// stall gate in front of the Twilio double holds the connection). A new process on the same database picks the
// job up once the dead one's lease has run out: the phone gets the code exactly once, and it verifies.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { startTwilioFake } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { twilioWorkspaceWithCli } from '../helpers/carrier-workspace.js';
import { cliSuiteEnv } from '../helpers/cli-setup.js';
import { eventually, quietPeriod } from '../helpers/eventually.js';
import { type ServerProcess, startServer } from '../helpers/process.js';
import { startStallGate } from '../helpers/stall-gate.js';

const { env } = cliSuiteEnv();

test('a process killed between commit and hand-over: the next process delivers the code, once', async () => {
  const twilio = await startTwilioFake(TWILIO);
  const gate = await startStallGate(Number(new URL(twilio.baseUrl).port));
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await gate.close();
    await twilio.close();
  });

  const { key } = twilioWorkspaceWithCli(env, gate.url);
  // A short carrier timeout gives a short lease (twice it, plus a second), so the test need not wait long.
  const serverEnv = { ...env, DELIVERY_WAIT_MS: '200', CARRIER_TIMEOUT_MS: '1000', DELIVERY_POLL_MS: '100' };
  const call = (server: ServerProcess, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  gate.stall();
  const first = await startServer(serverEnv);
  servers.push(first);
  const res = await call(first, '/v1/otp/send', { phone: '+61412345678', channel: 'sms' });
  assert.equal(res.status, 201);
  const sent = (await res.json()) as Verification;
  assert.equal(sent.status, 'pending');
  assert.equal(sent.delivery.ok, false, 'the hand-over has not happened: the gate holds it');
  await eventually('the hand-over reaching the gate', async () => (gate.held() === 1 ? true : undefined));

  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  await gate.open(); // drops the held connection: none of it ever reached the carrier
  assert.equal(twilio.requests.length, 0);

  const second = await startServer(serverEnv);
  servers.push(second);
  const delivered = await eventually('the hand-over by the new process', async () => {
    const v = (await (await call(second, `/v1/otp/${sent.id}`)).json()) as Verification;
    return v.delivery.ok ? v : undefined;
  });
  assert.equal(delivered.status, 'pending');
  assert.match(delivered.delivery.provider_id ?? '', /^SM/);
  assert.equal(twilio.requests.length, 1, 'the phone gets the code once');
  const code = /(\d{6})$/.exec(twilio.requests[0]?.form.get('Body') ?? '')?.[1];
  const check = (await (await call(second, '/v1/otp/check', { verification_id: sent.id, code })).json()) as {
    verified: boolean;
  };
  assert.equal(check.verified, true);
  // A while later, still once: a fixed wait, as it shows nothing else picks the settled job up again.
  await quietPeriod(500);
  assert.equal(twilio.requests.length, 1);
});
