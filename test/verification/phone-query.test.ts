// What a number typed into the log's search asks for (docs/dashboard.md, "Phone search"): a whole number is one
// exact value; "+…" is the start of the E.164 form; digits without "+" are the start of the national number in
// any served country (trunk 0 dropped), the start of the E.164 digits, or the end of the number. Whatever is
// typed, the answer is one of these, never an error: the search box is user input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { phoneQuery, upperBoundOf } from '../../src/verification/phone-query.js';

const CODES = ['61', '1', '44', '64'];

describe('phone search: what a typed number asks for', () => {
  test('a whole number is an exact value: E.164, or national in the default country, separators allowed', () => {
    for (const typed of [
      '+61412345678',
      '+61 412 345 678',
      '+61 (4) 1234-5678',
      '0412 345 678',
      '412345678',
    ]) {
      assert.deepEqual(phoneQuery(typed, 'AU'), { kind: 'whole', phone: '+61412345678' }, typed);
    }
    assert.deepEqual(phoneQuery('(212) 555-0123', 'US'), { kind: 'whole', phone: '+12125550123' });
    assert.deepEqual(phoneQuery('+44 7400 123456', 'AU'), { kind: 'whole', phone: '+447400123456' });
  });

  test('a national number without a default country, or not valid there, is a partial one', () => {
    assert.equal(phoneQuery('0412 345 678', undefined).kind, 'partial');
    assert.equal(phoneQuery('021 123 456', 'AU').kind, 'partial', 'a New Zealand number typed nationally');
    // A number of a country not served is never "whole": there is none in the log.
    assert.equal(phoneQuery('+33 6 12 34 56 78', 'AU').kind, 'partial');
  });

  test('"+" and digits: the start of the E.164 form only', () => {
    assert.deepEqual(phoneQuery('+61 4', 'AU'), { kind: 'partial', prefixes: ['+614'], suffix: undefined });
    assert.deepEqual(phoneQuery('  +1 212', 'AU'), {
      kind: 'partial',
      prefixes: ['+1212'],
      suffix: undefined,
    });
  });

  test('digits: the national number’s start in every served country, the E.164 digits’ start, or the end', () => {
    // The trunk 0 dropped; no calling code starts with 0.
    assert.deepEqual(phoneQuery('0412 3', 'AU'), {
      kind: 'partial',
      prefixes: CODES.map((c) => `+${c}4123`),
      suffix: '4123',
    });
    assert.deepEqual(phoneQuery('6141', 'AU'), {
      kind: 'partial',
      prefixes: [...CODES.map((c) => `+${c}6141`), '+6141'],
      suffix: '6141',
    });
    // The last three digits, as the list shows them.
    assert.deepEqual(phoneQuery('156', 'AU'), {
      kind: 'partial',
      prefixes: [...CODES.map((c) => `+${c}156`), '+156'],
      suffix: '156',
    });
    assert.deepEqual(phoneQuery('000', 'AU'), {
      kind: 'partial',
      prefixes: CODES.map((c) => `+${c}0`),
      suffix: '0',
    });
  });

  test('no digits: no phone filter; anything else typed is dropped, never an error', () => {
    for (const typed of [
      '',
      '   ',
      'abc',
      '%',
      '_',
      '%_%',
      "'; drop table verifications; --",
      '"',
      '\u0000',
      '+',
    ]) {
      assert.deepEqual(phoneQuery(typed, 'AU'), { kind: 'any' }, JSON.stringify(typed));
    }
    // Digits of other scripts are not ASCII digits: they are dropped like letters.
    assert.deepEqual(phoneQuery('٠٤١٢ ３４５', 'AU'), { kind: 'any' });
    // LIKE wildcards, quotes and NUL bytes around digits leave the digits only.
    assert.deepEqual(phoneQuery('1%_\'"\u00002', 'AU'), phoneQuery('12', 'AU'));
    // Letters make no vanity number: "1-800-FLOWERS" is the digits 1800, not a whole number.
    assert.equal(phoneQuery('+1 800 FLOWERS', 'US').kind, 'partial');
    // As long as the box allows (the filter keeps 32 characters), and longer than any number: no match, no error.
    const long = phoneQuery('9'.repeat(32), 'AU');
    assert.equal(long.kind, 'partial');
  });

  test('a range from a start holds exactly the strings of digits that start with it', () => {
    const [low, high] = ['+6141', upperBoundOf('+6141')];
    for (const phone of ['+6141', '+61412345678', '+614199999999999'])
      assert.ok(phone >= low && phone <= high, phone);
    for (const phone of ['+614', '+6140999999999', '+6142', '+615', '+7'])
      assert.ok(!(phone >= low && phone <= high), phone);
  });
});
