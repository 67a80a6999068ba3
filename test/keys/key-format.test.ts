// Unit tests for src/keys/key-format.ts: the key shape of spec section 5 ("a fixed live-key prefix followed
// by a random string; a key not in that shape is malformed") and "only a hash is stored".
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  displayPrefix,
  generateKey,
  hashKey,
  isWellFormedKey,
  KEY_PREFIX,
} from '../../src/keys/key-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The key with the character at `index` replaced by a different base62 character. */
function flipAt(key: string, index: number): string {
  const current = key.charAt(index);
  const replacement = current === 'a' ? 'b' : 'a';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('key-format: generateKey (spec 5: fixed live-key prefix + random string)', () => {
  test('starts with the live-key prefix pv_live_', () => {
    assert.equal(KEY_PREFIX, 'pv_live_');
    assert.ok(generateKey().startsWith(KEY_PREFIX));
  });

  test('is the prefix followed by 38 base62 characters (32 random + 6 checksum)', () => {
    for (let i = 0; i < 50; i++) {
      const key = generateKey();
      assert.equal(key.length, KEY_PREFIX.length + 38);
      assert.match(key, /^pv_live_[0-9A-Za-z]{38}$/);
    }
  });

  test('every generated key is well formed', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateKey();
      assert.equal(isWellFormedKey(key), true, key);
    }
  });

  test('keys are random: 1000 generated keys are all distinct', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey()));
    assert.equal(keys.size, 1000);
  });

  test('the random part uses the whole base62 alphabet (not a fixed or narrow pattern)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      for (const ch of generateKey().slice(KEY_PREFIX.length, KEY_PREFIX.length + 32)) seen.add(ch);
    }
    // 6400 draws over 62 symbols: every symbol appears with overwhelming probability.
    assert.equal(seen.size, BASE62.length);
  });
});

describe('key-format: isWellFormedKey (spec 5: a key not in the shape is malformed)', () => {
  const key = generateKey();

  test('accepts a generated key', () => {
    assert.equal(isWellFormedKey(key), true);
  });

  test('rejects a wrong prefix (pv_test_, PV_LIVE_, sk_live_, no prefix)', () => {
    const rest = key.slice(KEY_PREFIX.length);
    for (const prefix of ['pv_test_', 'PV_LIVE_', 'sk_live_', 'pv_live', 'pvlive_', '']) {
      assert.equal(isWellFormedKey(prefix + rest), false, prefix);
    }
  });

  test('rejects a key one character too short or too long', () => {
    assert.equal(isWellFormedKey(key.slice(0, -1)), false);
    assert.equal(isWellFormedKey(key.slice(0, KEY_PREFIX.length) + key.slice(KEY_PREFIX.length + 1)), false);
    assert.equal(isWellFormedKey(`${key}a`), false);
    assert.equal(
      isWellFormedKey(`${key.slice(0, KEY_PREFIX.length)}a${key.slice(KEY_PREFIX.length)}`),
      false,
    );
  });

  test('rejects a bad checksum: any one character of the random part changed', () => {
    for (let i = KEY_PREFIX.length; i < KEY_PREFIX.length + 32; i++) {
      assert.equal(isWellFormedKey(flipAt(key, i)), false, `changed at ${i}`);
    }
  });

  test('rejects a bad checksum: any one character of the checksum changed', () => {
    for (let i = key.length - 6; i < key.length; i++) {
      assert.equal(isWellFormedKey(flipAt(key, i)), false, `changed at ${i}`);
    }
  });

  test('rejects two adjacent random characters swapped (a typical typo)', () => {
    const i = KEY_PREFIX.length;
    let k = generateKey();
    while (k.charAt(i) === k.charAt(i + 1)) k = generateKey();
    const swapped = k.slice(0, i) + k.charAt(i + 1) + k.charAt(i) + k.slice(i + 2);
    assert.equal(isWellFormedKey(swapped), false);
  });

  test('rejects characters outside base62, surrounding white space, and junk', () => {
    const body = key.slice(0, -1);
    for (const bad of [
      `${body}-`,
      `${body}_`,
      `${body}é`,
      ` ${key}`,
      `${key} `,
      `${key}\n`,
      '',
      'pv_live_',
      'Bearer',
      'null',
      'undefined',
      key.toUpperCase(),
      key.replace('pv_live_', 'pv_live_ '),
    ]) {
      assert.equal(isWellFormedKey(bad), false, JSON.stringify(bad));
    }
  });

  test('does not accept a key whose checksum was computed for another body', () => {
    const a = generateKey();
    const b = generateKey();
    assert.equal(isWellFormedKey(a.slice(0, -6) + b.slice(-6)), false);
  });
});

describe('key-format: hashKey (spec 5: only a hash is stored)', () => {
  test('is the SHA-256 of the whole key, hex', () => {
    const key = generateKey();
    assert.equal(hashKey(key), createHash('sha256').update(key).digest('hex'));
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
  });

  test('is deterministic and differs between keys', () => {
    const a = generateKey();
    const b = generateKey();
    assert.equal(hashKey(a), hashKey(a));
    assert.notEqual(hashKey(a), hashKey(b));
  });

  test('does not contain the key or its random part', () => {
    const key = generateKey();
    const hash = hashKey(key);
    assert.equal(hash.includes(key), false);
    assert.equal(hash.includes(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8)), false);
  });
});

describe('key-format: displayPrefix (what key lists show)', () => {
  test('is the live-key prefix plus the first four characters', () => {
    const key = generateKey();
    assert.equal(displayPrefix(key), key.slice(0, KEY_PREFIX.length + 4));
    assert.equal(displayPrefix(key).length, 12);
    assert.ok(displayPrefix(key).startsWith(KEY_PREFIX));
  });

  test('reveals only 4 of the 32 random characters', () => {
    const key = generateKey();
    assert.equal(displayPrefix(key).slice(KEY_PREFIX.length).length, 4);
    assert.equal(key.startsWith(displayPrefix(key)), true);
  });
});
