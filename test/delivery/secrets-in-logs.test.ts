// Issue 5, item 7: carrier credentials, message bodies and codes never reach the logs or the API, even at trace
// level, through a send that is handed over, one that fails and is retried, and a signed status callback. A
// real server process, logging as an operator would run it; the carrier is the local Twilio double.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { signLikeTwilio, startTwilioFake } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { twilioWorkspaceWithCli } from '../helpers/carrier-workspace.js';
import { cliSuiteEnv } from '../helpers/cli-setup.js';
import { eventually } from '../helpers/eventually.js';
import { runCli, startServer } from '../helpers/process.js';

const { env } = cliSuiteEnv();

/** The code as a number of its own in the text, not as digits inside a longer one (a timestamp, say). */
const containsCode = (text: string, code: string) => new RegExp(`(?<!\\d)${code}(?!\\d)`).test(text);

test('trace logs and API answers hold no carrier credential, message text or code', async () => {
  const twilio = await startTwilioFake(TWILIO);
  const { workspaceId: ws, accountId, key } = twilioWorkspaceWithCli(env, twilio.baseUrl);
  const publicUrl = 'http://127.0.0.1:9';
  const server = await startServer({
    ...env,
    LOG_LEVEL: 'trace',
    PUBLIC_URL: publicUrl,
    DELIVERY_POLL_MS: '100',
  });
  after(async () => {
    await server.stop();
    await twilio.close();
  });
  const answers: string[] = [];
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    answers.push(text);
    return JSON.parse(text) as Verification & { verified?: boolean };
  };

  const handedOver = await call('/v1/otp/send', { phone: '+61412340001', channel: 'sms' });
  assert.equal(handedOver.delivery.ok, true);
  twilio.reply({ kind: 'server_error', status: 503 });
  const retried = await call('/v1/otp/send', { phone: '+61412340002', channel: 'voice' });
  assert.equal(retried.delivery.ok, false);
  await eventually('the retried hand-over', async () => (await call(`/v1/otp/${retried.id}`)).delivery.ok, {
    intervalMs: 50,
  });

  const callback = {
    MessageSid: handedOver.delivery.provider_id ?? '',
    MessageStatus: 'undelivered',
    ErrorCode: '30003',
  };
  const callbackUrl = `${publicUrl}/webhooks/twilio/${accountId}`;
  const res = await fetch(`${server.url}/webhooks/twilio/${accountId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signLikeTwilio(TWILIO.authToken, callbackUrl, callback),
    },
    body: new URLSearchParams(callback).toString(),
  });
  assert.equal(res.status, 204);
  assert.equal((await call(`/v1/otp/${handedOver.id}`)).status, 'undelivered');
  answers.push(runCli(['carrier', 'list', '--workspace', ws, '--json'], env).stdout);

  const sms = twilio.requests.find((r) => r.form.has('Body'))?.form.get('Body') ?? '';
  const smsCode = /(\d{6})$/.exec(sms)?.[1] ?? '';
  const twiml = twilio.requests.find((r) => r.form.has('Twiml'))?.form.get('Twiml') ?? '';
  const voiceCode = [...twiml.matchAll(/>(\d(?:, \d){5})\.</g)][0]?.[1]?.replace(/, /g, '') ?? '';
  assert.equal(smsCode.length, 6);
  assert.equal(voiceCode.length, 6);

  const logs = server.stderr();
  assert.ok(logs.includes('carrier status report'), 'the callback was logged');
  for (const [what, where] of [
    ['logs', logs],
    ['API and CLI answers', answers.join('\n')],
  ] as const) {
    assert.equal(where.includes(TWILIO.authToken), false, `the auth token is not in the ${what}`);
    assert.equal(where.includes(sms), false, `the SMS text is not in the ${what}`);
    assert.equal(where.includes('do not share this code'), false, `no message text is in the ${what}`);
    assert.equal(where.includes('<Say'), false, `no call markup is in the ${what}`);
    assert.equal(containsCode(where, smsCode), false, `the SMS code is not in the ${what}`);
    assert.equal(containsCode(where, voiceCode), false, `the voice code is not in the ${what}`);
  }
});
