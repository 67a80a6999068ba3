// Spec section 3, States and transitions: one test per row of the transition table, in table order, then the
// statuses table ("pending is the only status that accepts a code"; "every status except pending is terminal").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LATE_FAILURE_DELAY_MS } from '../../src/delivery/dev-provider.js';
import type { Verification } from '../helpers/api-types.js';
import { type Client, json, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { acmeApp, refusedCheck, verificationApi, wrongCode } from '../helpers/verification.js';

type Status = Verification['status'];

describe('spec §3 transition table', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  let next = 0;
  /** A fresh AU mobile per verification, so no send limit is ever reached. */
  const nextPhone = () => `+614123480${String(++next).padStart(2, '0')}`;

  const { fresh, check, read } = verificationApi(() => ({ api, services: t.services }));

  /** A verification brought into a status through the API (and the fake clock). */
  async function inStatus(status: Status) {
    switch (status) {
      case 'pending':
        return fresh(nextPhone());
      case 'verified': {
        const f = await fresh(nextPhone());
        await check({ verification_id: f.v.id, code: f.code });
        return f;
      }
      case 'expired': {
        const f = await fresh(nextPhone(), { ttl_seconds: 60 });
        clock.advance(60_000);
        await read(f.v.id);
        return f;
      }
      case 'failed': {
        const f = await fresh(nextPhone(), { max_attempts: 1 });
        await check({ verification_id: f.v.id, code: wrongCode(f.code) });
        return f;
      }
      case 'undelivered':
        return fresh('+61412340999');
      case 'canceled': {
        const f = await fresh(nextPhone());
        await api.cancel(f.v.id);
        return f;
      }
    }
  }

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  test('row 1: (none) --POST /v1/otp/send, valid request--> pending; attempts 0; expires_at set from ttl_seconds', async () => {
    const { v } = await fresh(nextPhone(), { ttl_seconds: 120 });
    assert.equal(v.status, 'pending');
    assert.equal(v.attempts, 0);
    assert.equal(v.created_at, new Date(clock.now()).toISOString());
    assert.equal(v.expires_at, new Date(clock.now() + 120_000).toISOString());
    assert.equal(v.verified_at, null);
    assert.deepEqual(await read(v.id), v);
  });

  test('row 2: pending --POST /v1/otp/check, correct code--> verified; verified_at set', async () => {
    const { v, code } = await fresh(nextPhone());
    clock.advance(3_000);
    const r = await check({ verification_id: v.id, code });
    assert.equal(r.status, 'verified');
    assert.equal(r.verified, true);
    assert.equal(r.verified_at, new Date(clock.now()).toISOString());
    const stored = await read(v.id);
    assert.equal(stored.status, 'verified');
    assert.equal(stored.verified_at, r.verified_at);
  });

  test('row 3: pending --POST /v1/otp/check, wrong code, attempts remain--> pending; attempts +1; attempts_remaining', async () => {
    const { v, code } = await fresh(nextPhone(), { max_attempts: 4 });
    const r = await check({ verification_id: v.id, code: wrongCode(code) });
    assert.deepEqual(r, { id: v.id, status: 'pending', verified: false, attempts: 1, attempts_remaining: 3 });
    const stored = await read(v.id);
    assert.equal(stored.status, 'pending');
    assert.equal(stored.attempts, 1);
  });

  test('row 4: pending --POST /v1/otp/check, attempt budget spent--> failed', async () => {
    const { v, code } = await fresh(nextPhone(), { max_attempts: 2 });
    await check({ verification_id: v.id, code: wrongCode(code) });
    const r = await check({ verification_id: v.id, code: wrongCode(code) });
    assert.deepEqual(r, refusedCheck(v.id, 'failed', 2));
    const stored = await read(v.id);
    assert.equal(stored.status, 'failed');
    assert.equal(stored.attempts, 2);
    assert.equal(stored.verified_at, null);
  });

  test('row 5: pending --time, ttl_seconds elapsed--> expired', async () => {
    const { v } = await fresh(nextPhone(), { ttl_seconds: 60 });
    clock.advance(59_999);
    assert.equal((await read(v.id)).status, 'pending');
    clock.advance(1);
    assert.equal((await read(v.id)).status, 'expired');
  });

  test('row 6: pending --delivery never succeeded--> undelivered; delivery carries the reason', async () => {
    // Rejected at hand-over (…0999): undelivered at once, in the send response itself.
    const rejected = await fresh('+61412340999');
    assert.equal(rejected.v.status, 'undelivered');
    assert.equal(rejected.v.delivery.ok, false);
    assert.equal(rejected.v.delivery.error_code, 'destination_rejected');
    assert.notEqual(rejected.v.delivery.error_message, null);
    assert.equal((await read(rejected.v.id)).status, 'undelivered');

    // Handed over, then reported failed by the carrier (…0998): pending until the report, then undelivered.
    const late = await fresh('+61412340998');
    assert.equal(late.v.status, 'pending');
    assert.equal(late.v.delivery.ok, true);
    clock.advance(LATE_FAILURE_DELAY_MS);
    await t.services.devProvider.applyDueReports();
    const stored = await read(late.v.id);
    assert.equal(stored.status, 'undelivered');
    assert.equal(stored.delivery.error_code, 'delivery_failed');
    assert.notEqual(stored.delivery.error_message, null);
    // Its code is no longer taken.
    const r = await check({ verification_id: late.v.id, code: late.code });
    assert.deepEqual(r, refusedCheck(late.v.id, 'undelivered', 0));
  });

  test('row 7: pending --POST /v1/otp/send, new code for the same number--> canceled; old code dies at once; its id is dead', async () => {
    const old = await fresh(nextPhone());
    clock.advance(1_000);
    const newer = await fresh(old.phone);
    assert.equal(newer.v.status, 'pending');
    assert.equal((await read(old.v.id)).status, 'canceled');
    assert.deepEqual(
      await check({ verification_id: old.v.id, code: old.code }),
      refusedCheck(old.v.id, 'canceled', 0),
    );
    // The old id stays dead: still canceled, nothing spent.
    const stored = await read(old.v.id);
    assert.equal(stored.status, 'canceled');
    assert.equal(stored.attempts, 0);
  });

  test('row 8: pending --POST /v1/otp/{id}/cancel, any--> canceled', async () => {
    const { v, code } = await fresh(nextPhone());
    await check({ verification_id: v.id, code: wrongCode(code) });
    const res = await api.cancel(v.id);
    assert.equal(res.statusCode, 200);
    const canceled = json<Verification>(res);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.attempts, 1);
    assert.equal((await read(v.id)).status, 'canceled');
  });

  test('row 9: verified --POST /v1/otp/check, same verification again--> verified; same success returned; no attempt spent', async () => {
    const { v, code } = await fresh(nextPhone());
    const first = await check({ verification_id: v.id, code });
    clock.advance(30_000);
    assert.deepEqual(await check({ verification_id: v.id, code }), first);
    assert.deepEqual(await check({ verification_id: v.id, code: wrongCode(code) }), first);
    const stored = await read(v.id);
    assert.equal(stored.status, 'verified');
    assert.equal(stored.attempts, 1);
    assert.equal(stored.verified_at, first.verified_at);
  });

  test('row 10: any terminal status --POST /v1/otp/{id}/cancel, already finished--> unchanged; returned unchanged (idempotent)', async () => {
    for (const status of ['verified', 'expired', 'failed', 'undelivered', 'canceled'] as const) {
      const { v } = await inStatus(status);
      const before = await read(v.id);
      assert.equal(before.status, status);
      clock.advance(1_000);
      for (let i = 0; i < 2; i++) {
        const res = await api.cancel(v.id);
        assert.equal(res.statusCode, 200, `${status}: ${res.body}`);
        assert.deepEqual(json(res), before, status);
      }
      assert.deepEqual(await read(v.id), before, status);
    }
  });
});

describe('spec §3 statuses table', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  let next = 0;
  const nextPhone = () => `+614123481${String(++next).padStart(2, '0')}`;
  const { fresh } = verificationApi(() => ({ api, services: t.services }));

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  test('row pending: the only status that accepts a code', async () => {
    const { v, code } = await fresh(nextPhone());
    assert.equal(v.status, 'pending');
    assert.equal(json(await api.check({ verification_id: v.id, code })).verified, true);
  });

  test('rows verified, expired, failed, undelivered, canceled: every status except pending is terminal', async () => {
    const verified = await fresh(nextPhone());
    await api.check({ verification_id: verified.v.id, code: verified.code });
    const expired = await fresh(nextPhone(), { ttl_seconds: 60 });
    const failed = await fresh(nextPhone(), { max_attempts: 1 });
    await api.check({ verification_id: failed.v.id, code: wrongCode(failed.code) });
    const undelivered = await fresh('+61412340999');
    const canceled = await fresh(nextPhone());
    await api.cancel(canceled.v.id);
    clock.advance(60_000);

    const all = { verified, expired, failed, undelivered, canceled };
    const before = new Map<string, unknown>();
    for (const [status, f] of Object.entries(all)) {
      const read = json<Verification>(await api.get(f.v.id));
      assert.equal(read.status, status);
      before.set(status, read);
    }
    // Nothing moves a terminal verification: the correct code, a cancel, time and the sweeper.
    clock.advance(3_600_000);
    await t.services.verifications.expireDue();
    for (const [status, f] of Object.entries(all)) {
      const r = json(await api.check({ verification_id: f.v.id, code: f.code || '123456' }));
      assert.equal(r.status, status);
      assert.equal(r.verified, status === 'verified');
      await api.cancel(f.v.id);
      assert.deepEqual(json(await api.get(f.v.id)), before.get(status), status);
    }
  });
});
