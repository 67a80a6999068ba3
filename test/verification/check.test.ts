// Spec section 4, POST /v1/otp/check (field table, responses table, rules) and the check decisions of
// api-decisions.md "Verification behaviour".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Check } from '../helpers/api-types.js';
import { type Client, client, json, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { acmeApp, assertProblem, refusedCheck, verificationApi, wrongCode } from '../helpers/verification.js';

describe('spec §4 POST /v1/otp/check', () => {
  let t: TestApp;
  let clock: FakeClock;
  let api: Client;
  const { send, fresh, check, read } = verificationApi(() => ({ api, services: t.services }));

  before(async () => {
    ({ t, clock, api } = await acmeApp());
  });
  after(() => t.close());

  describe('responses table', () => {
    test('row "Correct code": 200 {id, status verified, verified true, verified_at}', async () => {
      const { v, code } = await fresh('+61412346001');
      clock.advance(5_000);
      const res = await api.check({ verification_id: v.id, code });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), {
        id: v.id,
        status: 'verified',
        verified: true,
        verified_at: new Date(clock.now()).toISOString(),
      });
      const after = await read(v.id);
      assert.equal(after.status, 'verified');
      assert.equal(after.verified_at, new Date(clock.now()).toISOString());
    });

    test('row "Wrong code": 200 {id, status pending, verified false, attempts, attempts_remaining}', async () => {
      const { v, code } = await fresh('+61412346002');
      assert.deepEqual(await check({ verification_id: v.id, code: wrongCode(code) }), {
        id: v.id,
        status: 'pending',
        verified: false,
        attempts: 1,
        attempts_remaining: 4,
      });
      assert.deepEqual(await check({ verification_id: v.id, code: wrongCode(code) }), {
        id: v.id,
        status: 'pending',
        verified: false,
        attempts: 2,
        attempts_remaining: 3,
      });
      const after = await read(v.id);
      assert.equal(after.status, 'pending');
      assert.equal(after.attempts, 2);
    });

    test('a check response never carries the code', async () => {
      const { v, code } = await fresh('+61412346003');
      const wrong = await api.check({ verification_id: v.id, code: wrongCode(code) });
      assert.equal(wrong.body.includes(code), false);
      const right = await api.check({ verification_id: v.id, code });
      assert.equal(Object.keys(json(right)).includes('code'), false);
    });
  });

  describe('rule 1: a wrong code is not an error (200, branch on verified)', () => {
    test('wrong codes answer 200 with verified false, also the final one', async () => {
      const { v, code } = await fresh('+61412346004', { max_attempts: 2 });
      for (let i = 0; i < 2; i++) {
        const res = await api.check({ verification_id: v.id, code: wrongCode(code) });
        assert.equal(res.statusCode, 200);
        assert.equal(json(res).verified, false);
      }
    });
  });

  describe('rule 2 / decision "Check after success": same success body (same verified_at), no attempt spent', () => {
    test('checking again with the correct code returns the same body and spends nothing', async () => {
      const { v, code } = await fresh('+61412346005');
      const first = await check({ verification_id: v.id, code });
      clock.advance(60_000);
      const again = await check({ verification_id: v.id, code });
      assert.deepEqual(again, first);
      assert.equal((await read(v.id)).attempts, 1);
    });

    test('checking again with a wrong code still returns the same success and spends nothing', async () => {
      const { v, code } = await fresh('+61412346006');
      const first = await check({ verification_id: v.id, code });
      clock.advance(1_000);
      assert.deepEqual(await check({ verification_id: v.id, code: wrongCode(code) }), first);
      assert.deepEqual(await check({ verification_id: v.id, code: '1' }), first);
      const after = await read(v.id);
      assert.equal(after.attempts, 1);
      assert.equal(after.verified_at, first.verified_at);
    });

    test('after success, even past expires_at, the same success is returned', async () => {
      const { v, code } = await fresh('+61412346007', { ttl_seconds: 60 });
      const first = await check({ verification_id: v.id, code });
      clock.advance(10 * 60_000);
      assert.deepEqual(await check({ verification_id: v.id, code }), first);
      assert.equal((await read(v.id)).status, 'verified');
    });
  });

  describe('decision "attempts counts every check against a pending verification, the correct one included"', () => {
    test('a first-time correct code leaves attempts 1', async () => {
      const { v, code } = await fresh('+61412346008');
      await check({ verification_id: v.id, code });
      assert.equal((await read(v.id)).attempts, 1);
    });

    test('two wrong codes then the correct one leave attempts 3', async () => {
      const { v, code } = await fresh('+61412346009');
      await check({ verification_id: v.id, code: wrongCode(code) });
      await check({ verification_id: v.id, code: wrongCode(code) });
      assert.equal((await check({ verification_id: v.id, code })).verified, true);
      assert.equal((await read(v.id)).attempts, 3);
    });

    test('the correct code on the last permitted attempt verifies', async () => {
      const { v, code } = await fresh('+61412346010', { max_attempts: 2 });
      await check({ verification_id: v.id, code: wrongCode(code) });
      assert.equal((await check({ verification_id: v.id, code })).status, 'verified');
      const after = await read(v.id);
      assert.equal(after.attempts, 2);
      assert.equal(after.max_attempts, 2);
    });
  });

  describe('decision "Final wrong attempt": 200 {id, status failed, verified false, attempts, attempts_remaining 0}', () => {
    test('max_attempts 3: the third wrong code fails the verification', async () => {
      const { v, code } = await fresh('+61412346011', { max_attempts: 3 });
      assert.equal((await check({ verification_id: v.id, code: wrongCode(code) })).attempts_remaining, 2);
      assert.equal((await check({ verification_id: v.id, code: wrongCode(code) })).attempts_remaining, 1);
      assert.deepEqual(
        await check({ verification_id: v.id, code: wrongCode(code) }),
        refusedCheck(v.id, 'failed', 3),
      );
      assert.equal((await read(v.id)).status, 'failed');
    });

    test('max_attempts 1: the only wrong code fails the verification', async () => {
      const { v, code } = await fresh('+61412346012', { max_attempts: 1 });
      assert.deepEqual(
        await check({ verification_id: v.id, code: wrongCode(code) }),
        refusedCheck(v.id, 'failed', 1),
      );
    });

    test('max_attempts 10: ten wrong codes are needed', async () => {
      const { v, code } = await fresh('+61412346013', { max_attempts: 10 });
      for (let i = 1; i <= 9; i++) {
        const r = await check({ verification_id: v.id, code: wrongCode(code) });
        assert.equal(r.status, 'pending');
        assert.equal(r.attempts, i);
        assert.equal(r.attempts_remaining, 10 - i);
      }
      assert.equal((await check({ verification_id: v.id, code: wrongCode(code) })).status, 'failed');
    });
  });

  describe('decision "Check against a terminal status other than verified": 200 {id, status, verified false, attempts, attempts_remaining 0}, spends nothing', () => {
    test('failed: even the correct code is refused and nothing is spent', async () => {
      const { v, code } = await fresh('+61412346014', { max_attempts: 2 });
      await check({ verification_id: v.id, code: wrongCode(code) });
      await check({ verification_id: v.id, code: wrongCode(code) });
      for (const c of [code, wrongCode(code)]) {
        assert.deepEqual(await check({ verification_id: v.id, code: c }), refusedCheck(v.id, 'failed', 2));
      }
      const after = await read(v.id);
      assert.equal(after.attempts, 2);
      assert.equal(after.status, 'failed');
      assert.equal(after.verified_at, null);
    });

    test('expired: even the correct code is refused and nothing is spent', async () => {
      const { v, code } = await fresh('+61412346015', { ttl_seconds: 60 });
      await check({ verification_id: v.id, code: wrongCode(code) });
      clock.advance(60_000);
      for (const c of [code, wrongCode(code)]) {
        assert.deepEqual(await check({ verification_id: v.id, code: c }), refusedCheck(v.id, 'expired', 1));
      }
      assert.equal((await read(v.id)).attempts, 1);
    });

    test('canceled: even the correct code is refused and nothing is spent', async () => {
      const { v, code } = await fresh('+61412346016');
      await check({ verification_id: v.id, code: wrongCode(code) });
      assert.equal((await api.cancel(v.id)).statusCode, 200);
      for (const c of [code, wrongCode(code)]) {
        assert.deepEqual(await check({ verification_id: v.id, code: c }), refusedCheck(v.id, 'canceled', 1));
      }
      assert.equal((await read(v.id)).attempts, 1);
    });

    test('undelivered (…0999 is rejected at hand-over): any code is refused and nothing is spent', async () => {
      const v = await send('+61412340999');
      assert.equal(v.status, 'undelivered');
      assert.deepEqual(
        await check({ verification_id: v.id, code: '123456' }),
        refusedCheck(v.id, 'undelivered', 0),
      );
      assert.equal((await read(v.id)).attempts, 0);
    });
  });

  describe('field `code`: non-digits are stripped; empty after stripping is 400; wrong length is a wrong attempt', () => {
    test('"123 456" (spaces) is the correct code, not a wrong guess', async () => {
      const { v, code } = await fresh('+61412346017');
      const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
      assert.equal((await check({ verification_id: v.id, code: spaced })).verified, true);
      assert.equal((await read(v.id)).attempts, 1);
    });

    test('"123-456" (dash) and other separators are the correct code, not a wrong guess', async () => {
      const { v, code } = await fresh('+61412346018');
      const dashed = `${code.slice(0, 3)}-${code.slice(3)}`;
      assert.equal((await check({ verification_id: v.id, code: dashed })).verified, true);
      assert.equal((await read(v.id)).attempts, 1);

      const other = await fresh('+61412346019');
      const decorated = ` Code: ${[...other.code].join('.')}\n`;
      assert.equal((await check({ verification_id: other.v.id, code: decorated })).verified, true);
      assert.equal((await read(other.v.id)).attempts, 1);
    });

    test('empty after stripping: 400 invalid_request naming code, and no attempt is spent', async () => {
      const { v } = await fresh('+61412346020');
      for (const code of ['', '   ', 'abc-def', '--']) {
        assertProblem(await api.check({ verification_id: v.id, code }), 400, 'invalid_request', 'code');
      }
      const after = await read(v.id);
      assert.equal(after.attempts, 0);
      assert.equal(after.status, 'pending');
    });

    test('code missing or not a string: 400 invalid_request naming code', async () => {
      const { v } = await fresh('+61412346021');
      assertProblem(await api.check({ verification_id: v.id }), 400, 'invalid_request', 'code');
      assertProblem(await api.check({ verification_id: v.id, code: 123456 }), 400, 'invalid_request', 'code');
      assert.equal((await read(v.id)).attempts, 0);
    });

    test('a code of the wrong length is a wrong attempt (too short, too long)', async () => {
      const { v, code } = await fresh('+61412346022');
      assert.deepEqual(await check({ verification_id: v.id, code: code.slice(0, 5) }), {
        id: v.id,
        status: 'pending',
        verified: false,
        attempts: 1,
        attempts_remaining: 4,
      });
      assert.deepEqual(await check({ verification_id: v.id, code: `${code}0` }), {
        id: v.id,
        status: 'pending',
        verified: false,
        attempts: 2,
        attempts_remaining: 3,
      });
      assert.equal((await check({ verification_id: v.id, code: '1' })).attempts, 3);
      assert.equal((await read(v.id)).attempts, 3);
      // The right code still works afterwards.
      assert.equal((await check({ verification_id: v.id, code })).verified, true);
    });
  });

  describe('fields `verification_id` / `phone`: exactly one of the two', () => {
    test('both given: 400 invalid_request, nothing spent', async () => {
      const { v, code } = await fresh('+61412346023');
      assertProblem(
        await api.check({ verification_id: v.id, phone: '+61412346023', code }),
        400,
        'invalid_request',
      );
      const after = await read(v.id);
      assert.equal(after.attempts, 0);
      assert.equal(after.status, 'pending');
    });

    test('neither given: 400 invalid_request', async () => {
      assertProblem(await api.check({ code: '123456' }), 400, 'invalid_request');
    });

    test('an unknown field: 400 naming it', async () => {
      const { v, code } = await fresh('+61412346024');
      assertProblem(await api.check({ verification_id: v.id, code, id: v.id }), 400, 'invalid_request', 'id');
    });

    test('an unknown verification_id: 404 not_found', async () => {
      assertProblem(
        await api.check({ verification_id: 'ver_000000000000000000000000', code: '123456' }),
        404,
        'not_found',
      );
    });

    test("another workspace's verification_id: 404 not_found, and it spends nothing", async () => {
      const { v, code } = await fresh('+61412346025');
      const other = client(t.app, (await seedWorkspace(t.services, { name: 'Other' })).key);
      assertProblem(await other.check({ verification_id: v.id, code }), 404, 'not_found');
      const after = await read(v.id);
      assert.equal(after.status, 'pending');
      assert.equal(after.attempts, 0);
    });
  });

  describe('field `phone` / decision "Check by phone": newest pending, else newest; 404 no_verification', () => {
    test('checks the newest pending verification of the number (not the superseded one)', async () => {
      const phone = '+61412346026';
      const first = await fresh(phone);
      clock.advance(1_000);
      const second = await fresh(phone);
      // The superseded code is a wrong attempt on the pending verification.
      assert.deepEqual(
        await check({ phone, code: first.code === second.code ? wrongCode(first.code) : first.code }),
        {
          id: second.v.id,
          status: 'pending',
          verified: false,
          attempts: 1,
          attempts_remaining: 4,
        },
      );
      const ok = await check({ phone, code: second.code });
      assert.equal(ok.id, second.v.id);
      assert.equal(ok.verified, true);
      assert.equal((await read(first.v.id)).status, 'canceled');
    });

    test('where none is pending, the newest: a retried check after success still succeeds', async () => {
      const phone = '+61412346027';
      const { v, code } = await fresh(phone);
      const first = await check({ phone, code });
      assert.equal(first.verified, true);
      clock.advance(1_000);
      assert.deepEqual(await check({ phone, code }), first);
      assert.deepEqual(await check({ phone, code: wrongCode(code) }), first);
      assert.equal((await read(v.id)).attempts, 1);
    });

    test('where none is pending, the newest even when every send fell in the same millisecond', async () => {
      const phone = '+61412346030';
      const sends = [];
      for (let i = 0; i < 4; i++) sends.push(await fresh(phone)); // the fake clock stands still
      const newest = sends[3];
      assert.ok(newest);
      assert.equal((await check({ phone, code: newest.code })).verified, true);
      // No code is pending now; the newest verification (the verified one) answers, not a superseded one.
      const again = await check({ phone, code: newest.code });
      assert.equal(again.id, newest.v.id);
      assert.equal(again.verified, true);
    });

    test('where none is pending, the newest: a stale one sees expired', async () => {
      const phone = '+61412346028';
      const older = await fresh(phone);
      await check({ phone, code: older.code });
      clock.advance(1_000);
      const { v, code } = await fresh(phone, { ttl_seconds: 60 });
      clock.advance(60_000);
      assert.deepEqual(await check({ phone, code }), refusedCheck(v.id, 'expired', 0));
    });

    test('national format with country', async () => {
      const { v, code } = await fresh('+64211234570');
      const r = await check({ phone: '021 123 4570', country: 'NZ', code });
      assert.equal(r.id, v.id);
      assert.equal(r.verified, true);
    });

    test('national format without country takes the workspace number country (AU)', async () => {
      const { v, code } = await fresh('+61412346029');
      const r = await check({ phone: '0412 346 029', code });
      assert.equal(r.id, v.id);
      assert.equal(r.verified, true);
    });

    test('country is ignored when phone is E.164', async () => {
      const { v, code } = await fresh('+61412346030');
      const r = await check({ phone: '+61412346030', country: 'NZ', code });
      assert.equal(r.id, v.id);
      assert.equal(r.verified, true);
    });

    test('a number without any verification: 404 no_verification', async () => {
      assertProblem(await api.check({ phone: '+61412346031', code: '123456' }), 404, 'no_verification');
    });

    test('a number with verifications only in another workspace: 404 no_verification', async () => {
      const { v, code } = await fresh('+61412346032');
      const other = client(t.app, (await seedWorkspace(t.services, { name: 'Other' })).key);
      assertProblem(await other.check({ phone: '+61412346032', code }), 404, 'no_verification');
      assert.equal((await read(v.id)).attempts, 0);
    });
  });

  describe('decision "Attempt budget is atomic"', () => {
    test('concurrent wrong checks never push attempts past max_attempts', async () => {
      const { v, code } = await fresh('+61412346033', { max_attempts: 3 });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => api.check({ verification_id: v.id, code: wrongCode(code) })),
      );
      for (const res of results) {
        assert.equal(res.statusCode, 200);
        const r = json<Check>(res);
        assert.equal(r.verified, false);
        assert.ok((r.attempts ?? 0) <= 3, res.body);
      }
      assert.equal(results.filter((r) => json<Check>(r).status === 'pending').length, 2);
      const after = await read(v.id);
      assert.equal(after.attempts, 3);
      assert.equal(after.status, 'failed');
      assert.equal((await check({ verification_id: v.id, code })).verified, false);
    });

    test('concurrent correct checks all see the one success', async () => {
      const { v, code } = await fresh('+61412346034');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => api.check({ verification_id: v.id, code })),
      );
      const bodies = results.map((r) => json<Check>(r));
      for (const b of bodies) assert.deepEqual(b, bodies[0]);
      assert.equal(bodies[0]?.verified, true);
      assert.equal((await read(v.id)).attempts, 1);
    });
  });
});
