// Spec section 3 row "pending --time--> expired" and api-decisions.md "Expiry": enforced at every read and check,
// stored as expired, persisted by the sweeper too; no code is ever accepted at or after expires_at.
// Time moves only through the fake clock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Client, json, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { acmeApp, refusedCheck, verificationApi } from '../helpers/verification.js';

describe('api-decisions "Expiry" (spec §3 pending --time--> expired)', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  const { fresh, read } = verificationApi(() => ({ api, services: t.services }));

  /** The stored row, bypassing every read path of the service. */
  async function storedStatus(id: string): Promise<string> {
    const row = await t.store.db
      .selectFrom('verifications')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return row.status;
  }

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  test('one millisecond before expires_at the correct code is still accepted', async () => {
    const { v, code } = await fresh('+61412349001');
    clock.set(Date.parse(v.expires_at) - 1);
    const r = json(await api.check({ verification_id: v.id, code }));
    assert.equal(r.verified, true);
    assert.equal(r.status, 'verified');
  });

  test('at exactly expires_at the correct code is not accepted: status expired, verified false, nothing spent', async () => {
    const { v, code } = await fresh('+61412349002');
    clock.set(Date.parse(v.expires_at));
    const res = await api.check({ verification_id: v.id, code });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), refusedCheck(v.id, 'expired', 0));
    assert.equal(await storedStatus(v.id), 'expired');
    const stored = await read(v.id);
    assert.equal(stored.attempts, 0);
    assert.equal(stored.verified_at, null);
  });

  test('the default ttl of 300 s: pending at 299.999 s, expired at 300 s', async () => {
    const { v } = await fresh('+61412349003');
    const created = Date.parse(v.created_at);
    clock.set(created + 299_999);
    assert.equal((await read(v.id)).status, 'pending');
    clock.set(created + 300_000);
    assert.equal((await read(v.id)).status, 'expired');
  });

  test('ttl_seconds 900: pending just before 900 s, expired at 900 s', async () => {
    const { v } = await fresh('+61412349004', { ttl_seconds: 900 });
    const created = Date.parse(v.created_at);
    clock.set(created + 899_999);
    assert.equal((await read(v.id)).status, 'pending');
    clock.set(created + 900_000);
    assert.equal((await read(v.id)).status, 'expired');
  });

  test('a read at expires_at reports expired and stores it (still expired when read after moving on, even with the clock set back)', async () => {
    const { v } = await fresh('+61412349005', { ttl_seconds: 60 });
    clock.set(Date.parse(v.expires_at));
    assert.equal((await read(v.id)).status, 'expired');
    assert.equal(await storedStatus(v.id), 'expired');
    clock.advance(5 * 60_000);
    assert.equal((await read(v.id)).status, 'expired');
    // Stored, not recomputed: even before expires_at it now reads expired.
    clock.set(Date.parse(v.expires_at) - 30_000);
    const again = await read(v.id);
    assert.equal(again.status, 'expired');
    assert.equal(again.expires_at, v.expires_at);
  });

  test('a correct code after expiry: status expired, verified false, and the code stays refused', async () => {
    const { v, code } = await fresh('+61412349006', { ttl_seconds: 60 });
    clock.set(Date.parse(v.expires_at) + 10_000);
    for (let i = 0; i < 2; i++) {
      const r = json(await api.check({ verification_id: v.id, code }));
      assert.equal(r.status, 'expired');
      assert.equal(r.verified, false);
      assert.equal(r.attempts_remaining, 0);
    }
    // Moving the clock back does not revive it.
    clock.set(Date.parse(v.created_at));
    assert.equal(json(await api.check({ verification_id: v.id, code })).verified, false);
    assert.equal((await read(v.id)).attempts, 0);
  });

  test('a wrong code after expiry spends nothing and keeps earlier attempts', async () => {
    const { v, code } = await fresh('+61412349007', { ttl_seconds: 60 });
    await api.check({ verification_id: v.id, code: code === '000000' ? '111111' : '000000' });
    clock.set(Date.parse(v.expires_at));
    assert.deepEqual(
      json(await api.check({ verification_id: v.id, code: '999999' })),
      refusedCheck(v.id, 'expired', 1),
    );
    assert.equal((await read(v.id)).attempts, 1);
  });

  test('check by phone at expiry sees the expired verification', async () => {
    const { v, code } = await fresh('+61412349008', { ttl_seconds: 60 });
    clock.set(Date.parse(v.expires_at));
    const r = json(await api.check({ phone: '+61412349008', code }));
    assert.equal(r.id, v.id);
    assert.equal(r.status, 'expired');
    assert.equal(r.verified, false);
    assert.equal(await storedStatus(v.id), 'expired');
  });

  test('cancel at expiry: the verification is expired, not canceled', async () => {
    const { v } = await fresh('+61412349009', { ttl_seconds: 60 });
    clock.set(Date.parse(v.expires_at));
    const res = await api.cancel(v.id);
    assert.equal(res.statusCode, 200);
    assert.equal(json(res).status, 'expired');
    assert.equal(await storedStatus(v.id), 'expired');
  });

  test('a send to the number of a due-but-unread verification records the old one as expired', async () => {
    const { v } = await fresh('+61412349010', { ttl_seconds: 60 });
    clock.set(Date.parse(v.expires_at));
    const newer = await fresh('+61412349010');
    assert.equal(newer.v.status, 'pending');
    assert.equal(await storedStatus(v.id), 'expired');
    assert.equal((await read(v.id)).status, 'expired');
  });

  test('sweeper: services.verifications.expireDue() persists expiry of due verifications without any read', async () => {
    const due = await fresh('+61412349011', { ttl_seconds: 60 });
    const notDue = await fresh('+61412349012', { ttl_seconds: 120 });
    clock.set(Date.parse(due.v.expires_at));
    assert.equal(await storedStatus(due.v.id), 'pending');
    const expired = await t.services.verifications.expireDue();
    assert.ok(expired >= 1, `expired ${expired}`);
    assert.equal(await storedStatus(due.v.id), 'expired');
    assert.equal(await storedStatus(notDue.v.id), 'pending');
    // Idempotent: nothing left to expire at the same moment.
    assert.equal(await t.services.verifications.expireDue(), 0);
    // And the API agrees, also with the clock set back before expires_at.
    clock.set(Date.parse(due.v.created_at));
    assert.equal((await read(due.v.id)).status, 'expired');
    assert.equal(json(await api.check({ verification_id: due.v.id, code: due.code })).status, 'expired');
    assert.equal(json(await api.check({ verification_id: notDue.v.id, code: notDue.code })).verified, true);
  });

  test('sweeper leaves terminal verifications alone', async () => {
    const verified = await fresh('+61412349013', { ttl_seconds: 60 });
    await api.check({ verification_id: verified.v.id, code: verified.code });
    const canceled = await fresh('+61412349014', { ttl_seconds: 60 });
    await api.cancel(canceled.v.id);
    clock.advance(10 * 60_000);
    await t.services.verifications.expireDue();
    assert.equal(await storedStatus(verified.v.id), 'verified');
    assert.equal(await storedStatus(canceled.v.id), 'canceled');
  });
});
