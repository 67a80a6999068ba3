// Safe destinations: endpoint URLs are checked when added (scheme, https in production, no credentials, no NUL,
// bounded, no literal private address) and at every delivery against the address the host resolves to then, the
// address the request then connects to (DNS rebinding cannot move it). WEBHOOK_ALLOW_PRIVATE=true lifts the
// private-address rule for local development and tests.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AppError } from '../../src/errors.js';
import { isPrivateAddress, validateWebhookUrl } from '../../src/webhooks/destination.js';
import { client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { fakeClock } from '../helpers/clock.js';
import { sendOk } from '../helpers/verification.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

const OPEN = { production: false, allowPrivate: false };

function refused(url: unknown, rules = OPEN): string {
  try {
    validateWebhookUrl(url, rules);
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'invalid_request');
    return err.message;
  }
  assert.fail(`accepted ${String(url)}`);
}

describe('endpoint URLs when added', () => {
  test('refused: not a URL, other schemes, credentials, NUL and odd characters, huge, private literals', () => {
    for (const bad of [
      '',
      'not a url',
      'ftp://example.com/x',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'https://user:pw@example.com/hook',
      'https://example.com/\u0000hook',
      'https://example.com/\u2028',
      'https://example.com/ hook',
      `https://example.com/${'a'.repeat(3000)}`,
      'https://example.com/#frag',
      'http://127.0.0.1/hook',
      'http://localhost:3000/hook',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://2130706433/', // 127.0.0.1 as one number
      'http://0x7f.1/',
      42,
      null,
    ]) {
      refused(bad);
    }
    assert.match(refused('http://example.com/hook', { production: true, allowPrivate: false }), /https/);
    assert.match(refused('ftp://example.com/'), /https/);
  });

  test('accepted: public https URLs; private ones only with WEBHOOK_ALLOW_PRIVATE', () => {
    assert.equal(
      validateWebhookUrl('https://hooks.example.com/pv?x=1', OPEN),
      'https://hooks.example.com/pv?x=1',
    );
    assert.equal(
      validateWebhookUrl('http://127.0.0.1:8080/h', { production: false, allowPrivate: true }),
      'http://127.0.0.1:8080/h',
    );
  });

  test('the blocked address ranges', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.127.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '::',
      '::1',
      'fc00::1',
      'fe80::1',
      '::ffff:8.8.8.8',
      '224.0.0.1',
      'not-an-ip',
    ]) {
      assert.equal(isPrivateAddress(a), true, a);
    }
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '172.32.0.1', '100.128.0.1']) {
      assert.equal(isPrivateAddress(a), false, a);
    }
  });
});

describe('at delivery: the resolved address', () => {
  let t: TestApp | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function setUp(allowPrivate: boolean, answers: Record<string, string[]>) {
    receiver = await startReceiver();
    t = await createTestApp({
      clock: fakeClock(Date.now()),
      webhooks: {
        allowPrivate,
        resolve: async (host) =>
          (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      },
    });
    const seeded = await seedWorkspace(t.services);
    return { t, seeded, api: client(t.app, seeded.key), port: new URL(receiver.url).port };
  }

  test('a name that resolves to a private address (DNS rebinding) is refused at delivery; nothing is sent', async () => {
    const { t, seeded, api, port } = await setUp(false, {
      'rebind.example.com': ['127.0.0.1'],
      'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
      'nowhere.example.com': [],
    });
    for (const host of ['rebind.example.com', 'mixed.example.com', 'nowhere.example.com']) {
      await t.services.webhooks.addEndpoint(
        {
          workspaceId: seeded.workspaceId,
          url: `http://${host}:${port}/hooks`,
          events: 'verification.created',
        },
        OPERATOR,
      );
    }
    await sendOk(api, { phone: '+61412344001', channel: 'sms' });
    assert.equal(await t.services.webhookDelivery.runDue(), 3);
    assert.equal(receiver?.received.length, 0);
    const endpoints = await t.services.webhooks.listEndpoints(seeded.workspaceId);
    const errorOf = async (host: string) => {
      const endpoint = endpoints.find((e) => new URL(e.url).hostname === host);
      assert.ok(endpoint, host);
      return String((await t.services.webhooks.listAttempts(seeded.workspaceId, endpoint.id))[0]?.error);
    };
    assert.match(await errorOf('rebind.example.com'), /refused: the host resolves to a loopback, private/);
    assert.match(await errorOf('mixed.example.com'), /refused/);
    assert.match(await errorOf('nowhere.example.com'), /did not resolve/);
  });

  test('the request connects to the address that was checked (the resolver answer), with the host of the URL', async () => {
    const { t, seeded, api, port } = await setUp(true, { 'receiver.example.com': ['127.0.0.1'] });
    await t.services.webhooks.addEndpoint(
      {
        workspaceId: seeded.workspaceId,
        url: `http://receiver.example.com:${port}/hooks`,
        events: 'verification.created',
      },
      OPERATOR,
    );
    await sendOk(api, { phone: '+61412344002', channel: 'sms' });
    await t.services.webhookDelivery.runDue();
    assert.equal(receiver?.received.length, 1);
    assert.equal(receiver?.received[0]?.headers.host, `receiver.example.com:${port}`);
  });
});

describe('at delivery: production', () => {
  test('an http:// endpoint added before NODE_ENV=production is refused at delivery, not sent to', async () => {
    const receiver = await startReceiver();
    const clock = fakeClock(Date.now());
    const dev = await createTestApp({ clock, webhooks: { allowPrivate: true } });
    try {
      const seeded = await seedWorkspace(dev.services);
      const added = await dev.services.webhooks.addEndpoint(
        { workspaceId: seeded.workspaceId, url: receiver.url, events: 'verification.created' },
        OPERATOR,
      );
      await sendOk(client(dev.app, seeded.key), { phone: '+61412344003', channel: 'sms' });
      const prod = await createTestApp({
        dir: dev.dir,
        clock,
        webhooks: { allowPrivate: true, production: true },
      });
      try {
        assert.equal(await prod.services.webhookDelivery.runDue(), 1);
        assert.equal(receiver.received.length, 0);
        const [attempt] = await prod.services.webhooks.listAttempts(seeded.workspaceId, added.id);
        assert.match(String(attempt?.error), /https:\/\/ endpoints only/);
      } finally {
        await prod.close();
      }
    } finally {
      await dev.close();
      await receiver.close();
    }
  });
});
