// Issue 12, item 6: an audit entry and its change commit together or not at all. A change refused (the 26th key,
// a number the workspace has, an account still in use) leaves no entry; and where the entry cannot be written
// (its table made unavailable for the test), the change is not made either, on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { OPERATOR } from '../../src/audit/actor.js';
import { MAX_ACTIVE_KEYS } from '../../src/keys/service.js';
import { createTestApp, type SeededWorkspace, seedWorkspace, type TestApp } from '../helpers/app.js';
import { entriesAddedBy } from '../helpers/audit.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { type DashboardClient, dashboardClient, PASSWORD, signedIn } from '../helpers/dashboard.js';

const KEYS = '/dashboard/settings/security/api-keys';
const SETTINGS = '/dashboard/settings';

describe('audit trail: an entry commits with its change, never alone', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let browser: DashboardClient;
  const email = 'atomic@example.com';

  before(async () => {
    t = await createTestApp();
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    browser = await signedIn(t.app, t.services, { email, workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  const activeKeys = async () =>
    (await t.services.keys.listKeys(ws.workspaceId)).filter((k) => k.status === 'active').length;

  test('the 26th key is refused and leaves no key.created entry', async () => {
    while ((await activeKeys()) < MAX_ACTIVE_KEYS) {
      await t.services.keys.createKey(
        { workspaceId: ws.workspaceId, name: `k${await activeKeys()}` },
        OPERATOR,
      );
    }
    const added = await entriesAddedBy(t.services, ws.workspaceId, async () => {
      const res = await browser.post(
        KEYS,
        { name: 'one too many', scopes: ['otp'], expires: '' },
        { from: KEYS },
      );
      assert.equal(res.statusCode, 409);
    });
    assert.deepEqual(added, []);
    assert.equal(await activeKeys(), MAX_ACTIVE_KEYS);
  });

  test('a number the workspace has already, and an account still in use, leave no entry', async () => {
    const [existing] = await t.services.workspaces.listNumbers(ws.workspaceId);
    assert.ok(existing);
    const account = await t.services.carriers.addAccount(
      { workspaceId: ws.workspaceId, type: 'twilio', credentials: TWILIO },
      OPERATOR,
    );
    await t.services.carriers.setNumberCarrier(ws.workspaceId, existing.id, account.id, OPERATOR);
    const added = await entriesAddedBy(t.services, ws.workspaceId, async () => {
      const duplicate = await browser.post(
        `${SETTINGS}/numbers`,
        { number: existing.number, type: '', carrier_id: '' },
        { from: SETTINGS },
      );
      assert.equal(duplicate.statusCode, 409);
      const inUse = await browser.post(
        `/dashboard/carriers/${account.id}/remove`,
        {},
        { from: '/dashboard/carriers' },
      );
      assert.equal(inUse.statusCode, 409);
    });
    assert.deepEqual(added, []);
  });

  test('where the entry cannot be written, the change is not made: keys, numbers, limits, accounts, sign-ins', async () => {
    const keysBefore = await t.services.keys.listKeys(ws.workspaceId);
    const numbersBefore = await t.services.workspaces.listNumbers(ws.workspaceId);
    const settingsBefore = await t.services.workspaces.getSettings(ws.workspaceId);
    const accountsBefore = await t.services.carriers.listAccounts(ws.workspaceId);
    const sessionsBefore = await t.store.db.selectFrom('sessions').select('token_hash').execute();
    const [first] = keysBefore;
    assert.ok(first);

    await sql`alter table audit_log rename to audit_log_away`.execute(t.store.db);
    try {
      const attempts = [
        () => browser.post(`${KEYS}/${first.id}/revoke`, {}, { from: KEYS }),
        () =>
          browser.post(
            `${SETTINGS}/numbers`,
            { number: '+61255501234', type: '', carrier_id: '' },
            { from: SETTINGS },
          ),
        () =>
          browser.post(
            `${SETTINGS}/limits`,
            { send_limit: '42', send_window_seconds: '600', request_limit_per_minute: '6000' },
            { from: SETTINGS },
          ),
        () =>
          browser.post(
            '/dashboard/carriers',
            { type: 'twilio', account_sid: TWILIO.accountSid, auth_token: TWILIO.authToken },
            { from: '/dashboard/carriers' },
          ),
        () =>
          dashboardClient(t.app).post(
            '/dashboard/signin',
            { email, password: PASSWORD, next: '/dashboard' },
            { from: '/dashboard/signin' },
          ),
      ];
      for (const attempt of attempts) {
        const res = await attempt();
        assert.ok(res.statusCode >= 500, `refused with ${res.statusCode}: ${res.body.slice(0, 200)}`);
      }
    } finally {
      await sql`alter table audit_log_away rename to audit_log`.execute(t.store.db);
    }

    assert.deepEqual(await t.services.keys.listKeys(ws.workspaceId), keysBefore, 'no key revoked');
    assert.deepEqual(
      await t.services.workspaces.listNumbers(ws.workspaceId),
      numbersBefore,
      'no number added',
    );
    assert.deepEqual(
      await t.services.workspaces.getSettings(ws.workspaceId),
      settingsBefore,
      'limits unchanged',
    );
    assert.deepEqual(
      await t.services.carriers.listAccounts(ws.workspaceId),
      accountsBefore,
      'no account added',
    );
    assert.deepEqual(
      await t.store.db.selectFrom('sessions').select('token_hash').execute(),
      sessionsBefore,
      'no session started',
    );

    // With its table back, the same change is made and recorded.
    const added = await entriesAddedBy(t.services, ws.workspaceId, async () => {
      const res = await browser.post(`${KEYS}/${first.id}/revoke`, {}, { from: KEYS });
      assert.equal(res.statusCode, 302);
    });
    assert.deepEqual(
      added.map((e) => [e.action, e.target]),
      [['key.revoked', first.id]],
    );
  });
});
