// `secret reseal` at the service level (src/secret-rotation.ts), on one database shared by the services of three
// processes: one with secret A, one with B and the previous A, one with B alone. A delivery job left waiting under
// A is resealed and then delivered by B alone; the start-up check names what does not open, and a reseal never
// overwrites credentials rotated meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { listSealedCredentials, replaceCredentials } from '../../src/carrier-accounts/repository.js';
import { findJob } from '../../src/delivery/jobs.js';
import { unseal } from '../../src/sealing.js';
import { deriveKey } from '../../src/secret.js';
import { createServices, type Services } from '../../src/services.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import type { Verification } from '../helpers/api-types.js';
import { client, json, openTestStore, TEST_PUBLIC_URL, type TestStoreHandle } from '../helpers/app.js';
import { TWILIO } from '../helpers/carrier-fixtures.js';
import { twilioWorkspace } from '../helpers/carrier-workspace.js';
import { fakeClock } from '../helpers/clock.js';

const SECRET_A = 'the-old-secret-the-old-secret-0123456789';
const SECRET_B = 'the-new-secret-the-new-secret-0123456789';

describe('secret reseal (services)', () => {
  const clock = fakeClock();
  let handle: TestStoreHandle;
  let twilio: TwilioFake;
  const apps: { close(): Promise<unknown> }[] = [];
  const servicesWith = (secret: string, previousSecret?: string): Services =>
    createServices({
      store: handle.store,
      secret,
      previousSecret,
      clock,
      publicUrl: TEST_PUBLIC_URL,
      delivery: { waitMs: 60_000, random: () => 0 },
    });
  async function appOf(services: Services) {
    const app = await buildApp({ services });
    apps.push(app);
    return app;
  }

  let accountId = '';
  let verification: Verification;
  let key = '';

  before(async () => {
    handle = await openTestStore();
    twilio = await startTwilioFake(TWILIO);
    const a = servicesWith(SECRET_A);
    const app = await appOf(a);
    const made = await twilioWorkspace(a, app, twilio.baseUrl);
    accountId = made.accountId;
    key = (await a.keys.createKey({ workspaceId: made.workspaceId, name: 'later' }, OPERATOR)).key;
    // The hand-over fails for now: the job, its code sealed under A, waits for its retry.
    twilio.reply({ kind: 'server_error', status: 503 });
    verification = json<Verification>(await made.api.send({ phone: '+61412340001', channel: 'sms' }));
    assert.equal(verification.delivery.ok, false);
  });
  after(async () => {
    for (const app of apps) await app.close();
    await twilio.close();
    await handle.close();
  });

  test('before the reseal, B alone refuses (the account) and warns (the job); B with the previous A finds both to reseal', async () => {
    const alone = await servicesWith(SECRET_B).secretRotation.checkAtStart();
    assert.match(
      alone.refusal ?? '',
      new RegExp(`Not starting: the credentials of 1 carrier account \\(${accountId}\\)`),
    );
    assert.deepEqual(alone.warnings, [
      '1 delivery job holds a code that no configured secret opens: those codes will not be delivered (their verifications become undelivered)',
    ]);
    const both = await servicesWith(SECRET_B, SECRET_A).secretRotation.checkAtStart();
    assert.equal(both.refusal, undefined);
    assert.deepEqual(both.warnings, [
      '1 carrier account and 1 delivery job are still sealed under PHONE_VERIFY_PREVIOUS_SECRET: run phone-verify secret reseal once every process has the new secret',
    ]);
  });

  test('the reseal seals the account and the job again under B; a second reseal finds nothing to do', async () => {
    const rotation = servicesWith(SECRET_B, SECRET_A).secretRotation;
    assert.deepEqual(await rotation.reseal(), {
      previous_secret: true,
      carrier_accounts: { total: 1, resealed: 1, unreadable: [] },
      delivery_jobs: { total: 1, resealed: 1, unreadable: 0 },
      webhook_secrets: { total: 0, resealed: 0, unreadable: 0 },
    });
    const job = await findJob(handle.store.db, verification.id);
    assert.ok(job);
    assert.equal(unseal(deriveKey(SECRET_A, 'delivery-jobs'), verification.id, job.sealed_code), undefined);
    assert.match(
      unseal(deriveKey(SECRET_B, 'delivery-jobs'), verification.id, job.sealed_code) ?? '',
      /^\d{6}$/,
    );
    assert.equal((await rotation.reseal()).delivery_jobs.resealed, 0);
    const alone = await servicesWith(SECRET_B).secretRotation.checkAtStart();
    assert.deepEqual(alone, { warnings: [] });
  });

  test('B alone then hands the resealed job over, and the code hashed under A is checked (while A is previous)', async () => {
    const alone = servicesWith(SECRET_B);
    clock.advance(60_000);
    assert.equal(await alone.dispatcher.runDue(), 1);
    const code = /(\d{6})$/.exec(twilio.accepted.at(-1)?.form.get('Body') ?? '')?.[1] ?? '';
    assert.equal(code.length, 6);
    // B alone cannot check a code hashed under A: it counts as a wrong attempt.
    const wrong = json<{ verified: boolean }>(
      await client(await appOf(alone), key).check({ verification_id: verification.id, code }),
    );
    assert.equal(wrong.verified, false);
    const both = servicesWith(SECRET_B, SECRET_A);
    const checked = json<{ verified: boolean }>(
      await client(await appOf(both), key).check({ verification_id: verification.id, code }),
    );
    assert.equal(checked.verified, true);
  });

  test('a reseal never overwrites credentials rotated meanwhile: its swap names the sealed text it replaces', async () => {
    const a = servicesWith(SECRET_A);
    const ws = await a.carriers.workspaceOfAccount(accountId);
    const { id } = await a.carriers.addAccount(
      { workspaceId: ws, type: 'twilio', credentials: TWILIO },
      OPERATOR,
    );
    const read = (await listSealedCredentials(handle.store.db)).find((row) => row.owner === id);
    assert.ok(read);
    // A rotation lands between the reseal's read and its write: the write finds other text, and changes nothing.
    const fresh = { ...TWILIO, authToken: 'rotated-token-rotated-token-000000' };
    await servicesWith(SECRET_B, SECRET_A).carriers.rotateCredentials(
      ws,
      id,
      { credentials: fresh },
      OPERATOR,
    );
    assert.equal(await replaceCredentials(handle.store.db, id, read.sealed, read.sealed), false);
    const got = await servicesWith(SECRET_B).carriers.getAccount(id);
    assert.equal(got?.credentials.authToken, fresh.authToken);
  });
});
