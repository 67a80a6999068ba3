// Unit tests of src/workspaces/phone-number.ts. service-spec section 4 (`phone`: E.164, or a national number
// together with `country`; `country` ignored when `phone` is E.164; countries AU, US, CA, GB, NZ).
// api-decisions "Numbers, countries, channels" (libphonenumber metadata, output always E.164, a workspace may
// narrow the countries; number types) and "Errors" (invalid_phone, unsupported_country).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getCountries, getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { AppError } from '../../src/errors.js';
import { SUPPORTED_COUNTRIES } from '../../src/vocabulary/countries.js';
import {
  callingCodeOf,
  countryOfNumber,
  detectNumberType,
  formatInternational,
  parsePhone,
  splitNumber,
} from '../../src/workspaces/phone-number.js';

function throwsCode(fn: () => unknown, code: string) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, `an AppError, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  });
}

describe('parsePhone', () => {
  test('the supported countries are AU, US, CA, GB, NZ', () => {
    assert.deepEqual([...SUPPORTED_COUNTRIES].sort(), ['AU', 'CA', 'GB', 'NZ', 'US']);
  });

  test('an E.164 number is returned as E.164 with its country', () => {
    assert.deepEqual(parsePhone('+61491570156', undefined), { e164: '+61491570156', country: 'AU' });
    assert.deepEqual(parsePhone('+64211234567', undefined), { e164: '+64211234567', country: 'NZ' });
    assert.deepEqual(parsePhone('+442079460000', undefined), { e164: '+442079460000', country: 'GB' });
    assert.deepEqual(parsePhone('+12015550123', undefined), { e164: '+12015550123', country: 'US' });
    assert.deepEqual(parsePhone('+14165550123', undefined), { e164: '+14165550123', country: 'CA' });
  });

  test('spaces, dashes and brackets in an international number are accepted; output is E.164', () => {
    assert.equal(parsePhone('+61 491 570 156', undefined).e164, '+61491570156');
    assert.equal(parsePhone('+1 (201) 555-0123', undefined).e164, '+12015550123');
    assert.equal(parsePhone('  +44 20 7946 0000 ', undefined).e164, '+442079460000');
  });

  test('a national number takes the given country', () => {
    assert.deepEqual(parsePhone('0491 570 156', 'AU'), { e164: '+61491570156', country: 'AU' });
    assert.deepEqual(parsePhone('021 123 4567', 'NZ'), { e164: '+64211234567', country: 'NZ' });
    assert.deepEqual(parsePhone('020 7946 0000', 'GB'), { e164: '+442079460000', country: 'GB' });
    assert.deepEqual(parsePhone('(201) 555-0123', 'US'), { e164: '+12015550123', country: 'US' });
    // A Canadian number given with country US is still recognised as Canadian (shared +1 plan).
    assert.equal(parsePhone('416 555 0123', 'US').e164, '+14165550123');
  });

  test('the country is ignored when the number is E.164', () => {
    assert.deepEqual(parsePhone('+61491570156', 'NZ'), { e164: '+61491570156', country: 'AU' });
  });

  test('a national number without a country is invalid_phone', () => {
    throwsCode(() => parsePhone('0491 570 156', undefined), 'invalid_phone');
  });

  test('an unparsable or invalid number is invalid_phone', () => {
    for (const input of ['', 'abc', '+', '+6149157', '0491', '12345678901234567890', '+61 000 000 000']) {
      throwsCode(() => parsePhone(input, 'AU'), 'invalid_phone');
    }
    // A number that is not valid for the given country (a UK mobile read as Australian).
    throwsCode(() => parsePhone('07400 123456', 'AU'), 'invalid_phone');
    assert.equal(parsePhone('07400 123456', 'GB').e164, '+447400123456');
  });

  test('a number outside AU, US, CA, GB, NZ is unsupported_country', () => {
    throwsCode(() => parsePhone('+33612345678', undefined), 'unsupported_country');
    throwsCode(() => parsePhone('+4915123456789', undefined), 'unsupported_country');
  });

  test('a workspace may narrow the allowed countries', () => {
    assert.equal(parsePhone('+61491570156', undefined, ['AU']).country, 'AU');
    throwsCode(() => parsePhone('+64211234567', undefined, ['AU']), 'unsupported_country');
    throwsCode(() => parsePhone('021 123 4567', 'NZ', ['AU', 'GB']), 'unsupported_country');
  });
});

describe('detectNumberType', () => {
  for (const [number, type] of [
    ['+61491570156', 'mobile'],
    ['+61255501234', 'landline'],
    ['+611300555123', 'local_rate'],
    ['+61131234', 'local_rate'],
    ['+611800555123', 'toll_free'],
    ['+64211234567', 'mobile'],
    ['+6493001234', 'landline'],
    ['+64800123456', 'toll_free'],
    ['+447400123456', 'mobile'],
    ['+442079460000', 'landline'],
    ['+448081570000', 'toll_free'],
  ] as const) {
    test(`${number} is ${type}`, () => {
      assert.equal(detectNumberType(number), type);
    });
  }

  test('US and CA numbers have no certain type', () => {
    assert.equal(detectNumberType('+12015550123'), undefined);
    assert.equal(detectNumberType('+14165550123'), undefined);
  });

  test('an invalid number has no type', () => {
    assert.equal(detectNumberType('+6100000000'), undefined);
  });
});

describe('what the rest of the code asks the phone module', () => {
  test('callingCodeOf: the calling code of a served country, without "+"', () => {
    assert.deepEqual(SUPPORTED_COUNTRIES.map(callingCodeOf), ['61', '1', '1', '44', '64']);
  });

  test('countryOfNumber: a served country, told apart by area code for +1; undefined for others', () => {
    assert.equal(countryOfNumber('+61491570156'), 'AU');
    assert.equal(countryOfNumber('+12125550123'), 'US');
    assert.equal(countryOfNumber('+14165550123'), 'CA');
    assert.equal(countryOfNumber('+33612345678'), undefined);
    assert.equal(countryOfNumber('not a number'), undefined);
  });

  test('splitNumber: calling code and national digits; undefined where the number does not parse', () => {
    assert.deepEqual(splitNumber('+61491570156'), { countryCallingCode: '61', nationalNumber: '491570156' });
    assert.equal(splitNumber('12'), undefined);
    assert.equal(splitNumber(''), undefined);
    assert.equal(splitNumber('+1'), undefined);
  });

  test("splitNumber without a parse, for a served country's E.164, is what libphonenumber's parse gives", () => {
    // Every served country's example numbers (libphonenumber's own), those of the countries sharing a calling code
    // with one (+1: the US, Canada and the Caribbean), and numbers of countries not served (parsed as before).
    const numbers = [
      ...getCountries().map((country) => getExampleNumber(country, examples)?.number),
      '+61491570156',
      '+61431234567',
      '+6421234567',
      '+6431234567',
      '+447700900123',
      '+442071838750',
      '+12125550123',
      '+14165550123',
      '+18765550123',
      '+33612345678',
      '+8613800138000',
      '+80012345678',
      '+999123456789',
    ].filter((n): n is NonNullable<typeof n> => n !== undefined);
    assert.ok(numbers.length > 200);
    for (const number of numbers) {
      const parsed = parsePhoneNumberFromString(number);
      const expected = parsed && {
        countryCallingCode: parsed.countryCallingCode,
        nationalNumber: parsed.nationalNumber,
      };
      assert.deepEqual(splitNumber(number), expected, number);
    }
  });

  test('formatInternational: spaced for people; as given where it does not parse', () => {
    assert.equal(formatInternational('+61491570156'), '+61 491 570 156');
    assert.equal(formatInternational('12'), '12');
  });
});
