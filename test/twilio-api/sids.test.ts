// Twilio-shaped SIDs (src/twilio-api/sids.ts): a verification's VE SID reads back to the 21 characters of its id it
// stands for (the look-up's plan: test/store/write-cost.test.ts); the service's VA alias and
// the account's AC SID are the workspace's alone, stable, and in Twilio's shapes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { newId } from '../../src/ids.js';
import {
  idPrefixOfSid,
  isVerificationId,
  namesWorkspace,
  SID_PREFIX_CHARS,
  twilioAccountSid,
  twilioServiceSid,
  verificationSid,
} from '../../src/twilio-api/sids.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const anyVerificationId = fc
  .string({ unit: fc.constantFrom(...BASE62), minLength: 24, maxLength: 24 })
  .map((s) => `ver_${s}`);

describe('Twilio SIDs', () => {
  test('a VE SID is VE and 32 hex digits, and reads back to the first 21 characters after ver_', () => {
    fc.assert(
      fc.property(anyVerificationId, (id) => {
        const sid = verificationSid(id);
        assert.match(sid, /^VE[0-9a-f]{32}$/);
        assert.equal(idPrefixOfSid(sid), id.slice(4, 4 + SID_PREFIX_CHARS));
        // Twilio's pattern allows upper-case hex: the same SID.
        assert.equal(idPrefixOfSid(`VE${sid.slice(2).toUpperCase()}`), id.slice(4, 25));
      }),
    );
    const real = newId('ver');
    assert.ok(isVerificationId(real));
    assert.equal(idPrefixOfSid(verificationSid(real)), real.slice(4, 25));
  });

  test('what is not a VE SID made here reads back to nothing', () => {
    for (const sid of [
      '',
      'VE',
      'VA0123',
      `VE${'0'.repeat(31)}`,
      `VE${'0'.repeat(33)}`,
      `ve${'0'.repeat(32)}`,
    ]) {
      assert.equal(idPrefixOfSid(sid), undefined, sid);
    }
    // 32 hex digits hold more than 21 base-62 ones: the largest are no SID of ours.
    assert.equal(idPrefixOfSid(`VE${'f'.repeat(32)}`), undefined);
  });

  test("the VA alias and the AC SID: Twilio's shapes, the workspace's alone, the same every time", () => {
    const a = newId('ws');
    const b = newId('ws');
    assert.match(twilioServiceSid(a), /^VA[0-9a-f]{32}$/);
    assert.match(twilioAccountSid(a), /^AC[0-9a-f]{32}$/);
    assert.equal(twilioServiceSid(a), twilioServiceSid(a));
    assert.notEqual(twilioServiceSid(a), twilioServiceSid(b));
    assert.notEqual(twilioServiceSid(a).slice(2), twilioAccountSid(a).slice(2));
    assert.ok(namesWorkspace(a, a));
    assert.ok(namesWorkspace(twilioServiceSid(a), a));
    assert.ok(!namesWorkspace(twilioServiceSid(b), a));
    assert.ok(!namesWorkspace(b, a));
  });
});
// The look-up's plan on each store (a range of the key on SQLite, migration 0015's index on PostgreSQL) is proven by
// test/store/write-cost.test.ts, with the service's own statement.
