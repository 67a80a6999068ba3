// The Carriers page warns when an account's callback URL points where no carrier on the internet can reach
// (PUBLIC_URL on this machine or a private network): its delivery reports would never arrive (issue 16, item 7).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { unreachableByCarriers } from '../../src/delivery/callback-url.js';
import { createTestApp, seedWorkspace } from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { signedIn } from '../helpers/dashboard.js';

describe('callback URLs carriers cannot reach', () => {
  test('this machine and private networks are named; public hosts and addresses are not', () => {
    for (const [url, reason] of [
      ['http://127.0.0.1/webhooks/twilio/ca_1', /127\.0\.0\.1 is this machine/],
      ['http://127.8.9.10:3000/x', /this machine/],
      ['http://localhost:3000/x', /localhost is this machine/],
      ['http://LOCALHOST/x', /localhost is this machine/],
      ['http://api.localhost/x', /this machine/],
      ['http://[::1]:3000/x', /::1 is this machine/],
      ['http://0.0.0.0/x', /this machine/],
      ['http://10.1.2.3/x', /private address/],
      ['http://172.16.0.1/x', /private address/],
      ['http://172.31.255.255/x', /private address/],
      ['http://192.168.1.20/x', /private address/],
      ['http://169.254.169.254/x', /private address/],
      ['http://[fd00::1]/x', /private address/],
      ['http://[fe80::1]/x', /private address/],
      ['http://printer.local/x', /local network name/],
      ['not a url', /not a URL/],
    ] as const) {
      assert.match(String(unreachableByCarriers(url)), reason, url);
    }
    for (const url of [
      'https://verify.example.com/webhooks/twilio/ca_1',
      'https://203.0.113.7/x',
      'http://172.32.0.1/x',
      'http://172.15.0.1/x',
      'https://[2001:db8::1]/x',
      'https://local.example.com/x',
      'https://xn--bcher-kva.example/x',
    ]) {
      assert.equal(unreachableByCarriers(url), undefined, url);
    }
  });

  for (const [publicUrl, warned] of [
    ['http://127.0.0.1:3000', true],
    ['https://verify.example.com', false],
  ] as const) {
    test(`the Carriers page ${warned ? 'warns' : 'does not warn'} with PUBLIC_URL ${publicUrl}`, async () => {
      const t = await createTestApp({ publicUrl });
      try {
        const ws = await seedWorkspace(t.services);
        await t.services.carriers.addAccount(
          { workspaceId: ws.workspaceId, type: 'twilio', credentials: TWILIO },
          OPERATOR,
        );
        const browser = await signedIn(t.app, t.services, { workspaceIds: [ws.workspaceId] });
        const page = await browser.get('/dashboard/carriers');
        assert.equal(page.statusCode, 200);
        assert.equal(page.body.includes('class="flash flash-error callback-unreachable"'), warned, page.body);
        if (warned) assert.match(page.body, /127\.0\.0\.1 is this machine/);
        assert.ok(page.body.includes(`${publicUrl}/webhooks/twilio/`), 'the URL is shown either way');
      } finally {
        await t.close();
      }
    });
  }
});
