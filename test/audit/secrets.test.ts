// Issue 12, item 6: nothing secret in the audit trail. An API key, carrier accounts of every type (added,
// rotated and their credentials tested) and sign-ins (right and wrong passwords) are made through the dashboard with known secrets; none of
// them, nor the session token, its hash or a password hash, appears in any column of any audit row. What the
// entries do say (the key's display prefix, the account's type) is checked too, so the test cannot pass empty.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type SeededWorkspace, seedWorkspace, type TestApp } from '../helpers/app.js';
import { auditRows } from '../helpers/audit.js';
import { SMPP, TELNYX, TWILIO, VONAGE } from '../helpers/carrier-fixtures.js';
import { type DashboardClient, dashboardClient, PASSWORD, signedIn } from '../helpers/dashboard.js';

const KEYS = '/dashboard/settings/security/api-keys';
const CARRIERS = '/dashboard/carriers';
const ROTATED = {
  authToken: 'twilio-auth-token-rotated-for-audit',
  apiKey: 'KEY0123456789ABCDEF_rotated-for-audit',
  apiSecret: 'vonage-api-secret-rotated-for-audit',
  signatureSecret: 'vonage-signature-secret-rotated-audit',
  password: 'smpp-rot-9',
};
const WRONG_PASSWORD = 'a-wrong-password-typed-by-someone';

const FORMS: Record<string, Record<string, string>> = {
  twilio: { type: 'twilio', account_sid: TWILIO.accountSid, auth_token: TWILIO.authToken },
  telnyx: {
    type: 'telnyx',
    api_key: TELNYX.apiKey,
    messaging_profile_id: TELNYX.messagingProfileId,
    connection_id: TELNYX.connectionId,
    public_key: TELNYX.publicKey,
  },
  vonage: {
    type: 'vonage',
    api_key: VONAGE.apiKey,
    api_secret: VONAGE.apiSecret,
    application_id: VONAGE.applicationId,
    private_key: VONAGE.privateKey,
    signature_secret: VONAGE.signatureSecret,
  },
  smpp: {
    type: 'smpp',
    host: SMPP.host,
    port: String(SMPP.port),
    system_id: SMPP.systemId,
    password: SMPP.password,
  },
};
const ROTATIONS: Record<string, Record<string, string>> = {
  twilio: { ...FORMS.twilio, auth_token: ROTATED.authToken },
  telnyx: { ...FORMS.telnyx, api_key: ROTATED.apiKey },
  vonage: { ...FORMS.vonage, api_secret: ROTATED.apiSecret, signature_secret: ROTATED.signatureSecret },
  smpp: { ...FORMS.smpp, password: ROTATED.password },
};

describe('audit trail: no secret in any entry', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let browser: DashboardClient;
  const email = 'secrets@example.com';

  before(async () => {
    // Credential tests of these accounts reach no carrier (their own API hosts): a short deadline ends them.
    t = await createTestApp({ delivery: { probeTimeoutMs: 500 } });
    ws = await seedWorkspace(t.services, { name: 'Secret Test Co' });
    browser = await signedIn(t.app, t.services, { email, workspaceIds: [ws.workspaceId] });
  });
  after(() => t.close());

  test('keys, carrier credentials, passwords and session tokens never reach the audit table', async () => {
    const created = await browser.post(
      KEYS,
      { name: 'Secret key', scopes: ['otp'], expires: '' },
      { from: KEYS },
    );
    assert.equal(created.statusCode, 200);
    const key = /<input[^>]*id="new-api-key"[^>]*value="([^"]+)"/.exec(created.body)?.[1] ?? '';
    assert.match(key, /^pv_live_/);

    for (const [type, form] of Object.entries(FORMS)) {
      const res = await browser.post(CARRIERS, form, { from: CARRIERS });
      assert.equal(res.statusCode, 302, `${type}: ${res.body.slice(0, 300)}`);
    }
    for (const account of await t.services.carriers.listAccounts(ws.workspaceId)) {
      const { type: _type, ...rotation } = ROTATIONS[account.type] ?? {};
      const res = await browser.post(`${CARRIERS}/${account.id}/rotate`, rotation, { from: CARRIERS });
      assert.equal(res.statusCode, 302, `${account.type}: ${res.body.slice(0, 300)}`);
      const tested = await browser.post(`${CARRIERS}/${account.id}/test`, {}, { from: CARRIERS });
      assert.equal(tested.statusCode, 302, `${account.type}: ${tested.body.slice(0, 300)}`);
    }

    const wrong = await dashboardClient(t.app).post(
      '/dashboard/signin',
      { email, password: WRONG_PASSWORD, next: '/dashboard' },
      { from: '/dashboard/signin' },
    );
    assert.equal(wrong.statusCode, 401);
    const session = browser.cookies.get('pv_session') ?? '';
    assert.ok(session.length > 20);
    const [user] = await t.store.db.selectFrom('users').select('password_hash').execute();

    const secrets = [
      key,
      key.slice('pv_live_'.length),
      createHash('sha256').update(key).digest('hex'),
      TWILIO.authToken,
      TELNYX.apiKey,
      VONAGE.apiSecret,
      VONAGE.signatureSecret,
      VONAGE.privateKey.split('\n')[1] ?? VONAGE.privateKey,
      SMPP.password,
      ...Object.values(ROTATED),
      PASSWORD,
      WRONG_PASSWORD,
      user?.password_hash ?? 'no hash',
      'scrypt$',
      session,
      createHash('sha256').update(session).digest('hex'),
    ];
    const rows = await auditRows(t.store);
    const text = JSON.stringify(rows);
    for (const secret of secrets)
      assert.equal(text.includes(secret), false, `the audit table holds ${secret}`);

    // What the entries do hold: the key by its display prefix, each account by its type, the sign-ins.
    const actions = rows.map((r) => r.action);
    for (const action of [
      'key.created',
      'carrier.added',
      'carrier.rotated',
      'carrier.tested',
      'signin.succeeded',
      'signin.failed',
    ]) {
      assert.ok(actions.includes(action as never), `recorded ${action}`);
    }
    const keyEntry = rows.find((r) => r.action === 'key.created' && r.details.includes('Secret key'));
    assert.ok(keyEntry?.details.includes(`"prefix":"${key.slice(0, 12)}`), keyEntry?.details);
    assert.equal(rows.filter((r) => r.action === 'carrier.rotated').length, 4);
    assert.equal(rows.filter((r) => r.action === 'carrier.tested').length, 4);
  });
});
