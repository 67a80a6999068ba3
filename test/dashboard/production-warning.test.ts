// Carriers issue, item 1: when the service runs with NODE_ENV=production and a workspace number has no carrier,
// the dashboard warns loudly on every page that codes sent from it reach no phone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices, type Services } from '../../src/services.js';
import { openTestStore, TEST_PUBLIC_URL, TEST_SECRET, type TestStoreHandle } from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { signedIn } from '../helpers/dashboard.js';

const WARNING = 'Codes from this workspace may reach no phone';

describe('dashboard: production warning for numbers without a carrier', () => {
  let handle: TestStoreHandle;
  let services: Services;
  let production: FastifyInstance;
  let development: FastifyInstance;

  before(async () => {
    handle = await openTestStore();
    services = createServices({ store: handle.store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
    production = await buildApp({ services, production: true });
    development = await buildApp({ services, production: false });
    await Promise.all([production.ready(), development.ready()]);
  });
  after(async () => {
    await production.close();
    await development.close();
    await handle.close();
  });

  async function workspaceWith(numbers: { number: string; carrier: boolean }[]): Promise<string> {
    const ws = await services.workspaces.createWorkspace({ name: 'Acme' }, OPERATOR);
    const account = await services.carriers.addAccount(
      {
        workspaceId: ws.id,
        type: 'twilio',
        credentials: TWILIO,
      },
      OPERATOR,
    );
    for (const n of numbers) {
      await services.workspaces.addNumber(
        {
          workspaceId: ws.id,
          number: n.number,
          carrierId: n.carrier ? account.id : undefined,
        },
        OPERATOR,
      );
    }
    return ws.id;
  }

  test('in production, every page of a workspace with a carrier-less number carries the warning', async () => {
    const ws = await workspaceWith([
      { number: '+61491570156', carrier: true },
      { number: '+61255501234', carrier: false },
    ]);
    const browser = await signedIn(production, services, { workspaceIds: [ws] });
    for (const path of [
      '/dashboard',
      '/dashboard/verifications',
      '/dashboard/inbox',
      '/dashboard/settings',
    ]) {
      const res = await browser.get(path);
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.includes(WARNING), `${path} warns`);
      assert.match(res.body, /one of its numbers has<!-- -->|one of its numbers has/);
    }
  });

  test('in production, a workspace whose numbers all have a carrier shows no warning', async () => {
    const ws = await workspaceWith([{ number: '+61491570156', carrier: true }]);
    const browser = await signedIn(production, services, { workspaceIds: [ws] });
    assert.equal((await browser.get('/dashboard')).body.includes(WARNING), false);
  });

  test('outside production, no warning even for carrier-less numbers', async () => {
    const ws = await workspaceWith([{ number: '+61255501234', carrier: false }]);
    const browser = await signedIn(development, services, { workspaceIds: [ws] });
    assert.equal((await browser.get('/dashboard')).body.includes(WARNING), false);
  });
});
