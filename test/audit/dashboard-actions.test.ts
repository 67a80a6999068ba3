// Issue 12, item 6: every change made through the dashboard's forms writes exactly one audit entry, in the
// session's workspace, naming the signed-in account (id and e-mail) and its client address, the id of what was
// acted on, and what changed. Saving a setting as it was records nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AuditEntryView } from '../../src/audit/log.js';
import { SUPPORTED_COUNTRIES } from '../../src/vocabulary/countries.js';
import { createTestApp, type SeededWorkspace, seedWorkspace, type TestApp } from '../helpers/app.js';
import { entriesAddedBy, oneEntryAddedBy } from '../helpers/audit.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { type DashboardClient, signedIn } from '../helpers/dashboard.js';

const KEYS = '/dashboard/settings/security/api-keys';
const SETTINGS = '/dashboard/settings';
const CARRIERS = '/dashboard/carriers';
/** What app.inject() requests come from. */
const ADDRESS = '127.0.0.1';

describe('audit trail: changes made in the dashboard', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let browser: DashboardClient;
  const email = 'ops@example.com';
  let userId = '';

  before(async () => {
    t = await createTestApp();
    ws = await seedWorkspace(t.services, { name: 'Acme' });
    browser = await signedIn(t.app, t.services, { email, workspaceIds: [ws.workspaceId] });
    const [member] = await t.services.accounts.listMembers(ws.workspaceId);
    userId = member?.id ?? '';
  });
  after(() => t.close());

  /** Posts a form from the page and expects the change to be accepted (a redirect, or the page rendered). */
  async function post(path: string, form: Record<string, string | string[]>, from: string) {
    const res = await browser.post(path, form, { from });
    assert.ok(res.statusCode === 302 || res.statusCode === 200, `${path}: ${res.statusCode} ${res.body}`);
    return res;
  }

  /** The entry one form post added: by the signed-in account, from its address. */
  async function entryOf(act: () => Promise<unknown>): Promise<AuditEntryView> {
    const entry = await oneEntryAddedBy(t.services, ws.workspaceId, act);
    assert.equal(entry.workspace_id, ws.workspaceId);
    assert.equal(entry.actor, userId);
    assert.equal(entry.actor_email, email);
    assert.equal(entry.address, ADDRESS);
    return entry;
  }

  test('an API key created and revoked: its id, name, prefix and scopes', async () => {
    const created = await entryOf(() =>
      post(KEYS, { name: 'Deploy bot', scopes: ['otp'], expires: '30' }, KEYS),
    );
    const key = (await t.services.keys.listKeys(ws.workspaceId)).find((k) => k.name === 'Deploy bot');
    assert.ok(key);
    assert.equal(created.action, 'key.created');
    assert.equal(created.target, key.id);
    assert.deepEqual(created.details, {
      name: 'Deploy bot',
      prefix: key.prefix,
      scopes: ['otp'],
      mode: 'live',
      expires_at: key.expires_at,
    });

    const revoked = await entryOf(() => post(`${KEYS}/${key.id}/revoke`, {}, KEYS));
    assert.equal(revoked.action, 'key.revoked');
    assert.equal(revoked.target, key.id);
    assert.deepEqual(revoked.details, { name: 'Deploy bot', prefix: key.prefix });

    // Revoking it again changes nothing, and records nothing.
    const again = await entriesAddedBy(t.services, ws.workspaceId, () =>
      browser.post(`${KEYS}/${key.id}/revoke`, {}, { from: KEYS }),
    );
    assert.deepEqual(again, []);
  });

  test('a number added, moved to a carrier account and back, and removed; the account added, rotated, removed', async () => {
    const added = await entryOf(() =>
      post(`${SETTINGS}/numbers`, { number: '+61255501234', type: '', carrier_id: '' }, SETTINGS),
    );
    const number = (await t.services.workspaces.listNumbers(ws.workspaceId)).find(
      (n) => n.number === '+61255501234',
    );
    assert.ok(number);
    assert.equal(added.action, 'number.added');
    assert.equal(added.target, number.id);
    assert.deepEqual(added.details, {
      number: '+61255501234',
      type: 'landline',
      country: 'AU',
      carrier_id: null,
    });

    const account = await entryOf(() =>
      post(
        CARRIERS,
        { type: 'twilio', account_sid: TWILIO.accountSid, auth_token: TWILIO.authToken },
        CARRIERS,
      ),
    );
    const [carrier] = await t.services.carriers.listAccounts(ws.workspaceId);
    assert.ok(carrier);
    assert.equal(account.action, 'carrier.added');
    assert.equal(account.target, carrier.id);
    assert.deepEqual(account.details, { type: 'twilio', base_url: null });

    const moved = await entryOf(() =>
      post(`${SETTINGS}/numbers/${number.id}/carrier`, { carrier_id: carrier.id }, SETTINGS),
    );
    assert.equal(moved.action, 'number.carrier_changed');
    assert.equal(moved.target, number.id);
    assert.deepEqual(moved.details, { number: '+61255501234', from: null, to: carrier.id });

    const rotated = await entryOf(() =>
      post(
        `${CARRIERS}/${carrier.id}/rotate`,
        { account_sid: TWILIO.accountSid, auth_token: 'twilio-auth-token-rotated-0000' },
        CARRIERS,
      ),
    );
    assert.equal(rotated.action, 'carrier.rotated');
    assert.equal(rotated.target, carrier.id);
    assert.deepEqual(rotated.details, { type: 'twilio' });

    const back = await entryOf(() =>
      post(`${SETTINGS}/numbers/${number.id}/carrier`, { carrier_id: 'none' }, SETTINGS),
    );
    assert.deepEqual(back.details, { number: '+61255501234', from: carrier.id, to: null });

    const removedAccount = await entryOf(() => post(`${CARRIERS}/${carrier.id}/remove`, {}, CARRIERS));
    assert.equal(removedAccount.action, 'carrier.removed');
    assert.equal(removedAccount.target, carrier.id);
    assert.deepEqual(removedAccount.details, { type: 'twilio' });

    const removed = await entryOf(() => post(`${SETTINGS}/numbers/${number.id}/remove`, {}, SETTINGS));
    assert.equal(removed.action, 'number.removed');
    assert.equal(removed.target, number.id);
    assert.deepEqual(removed.details, { number: '+61255501234', carrier_id: null });
  });

  test('the name, the countries and the limits: old and new values of what changed', async () => {
    const renamed = await entryOf(() => post(`${SETTINGS}/name`, { name: 'Acme Two' }, SETTINGS));
    assert.equal(renamed.action, 'workspace.renamed');
    assert.equal(renamed.target, ws.workspaceId);
    assert.deepEqual(renamed.details, { from: { name: 'Acme' }, to: { name: 'Acme Two' } });

    const countries = await entryOf(() =>
      post(`${SETTINGS}/countries`, { countries: ['NZ', 'AU'] }, SETTINGS),
    );
    assert.equal(countries.action, 'countries.changed');
    assert.deepEqual(countries.details, {
      from: { allowed_countries: [...SUPPORTED_COUNTRIES] },
      to: { allowed_countries: ['AU', 'NZ'] },
    });

    const limits = { send_limit: '10', send_window_seconds: '600', request_limit_per_minute: '7000' };
    const changed = await entryOf(() => post(`${SETTINGS}/limits`, limits, SETTINGS));
    assert.equal(changed.action, 'limits.changed');
    assert.equal(changed.target, ws.workspaceId);
    assert.deepEqual(changed.details, {
      from: { send_limit: 5, request_limit_per_minute: 6000 },
      to: { send_limit: 10, request_limit_per_minute: 7000 },
    });

    // The same values saved again: nothing changed, nothing recorded.
    const unchanged = await entriesAddedBy(t.services, ws.workspaceId, () =>
      post(`${SETTINGS}/limits`, limits, SETTINGS),
    );
    assert.deepEqual(unchanged, []);
    // A refused value changes nothing and records nothing.
    const refused = await entriesAddedBy(t.services, ws.workspaceId, async () => {
      const res = await browser.post(
        `${SETTINGS}/limits`,
        { ...limits, send_limit: '0' },
        { from: SETTINGS },
      );
      assert.equal(res.statusCode, 400);
    });
    assert.deepEqual(refused, []);
  });
});
