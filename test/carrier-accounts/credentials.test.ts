// Carrier credentials at rest (src/carrier-accounts/credentials.ts): AES-256-GCM under the derived credentials key,
// the account id bound in as additional data.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CredentialsUnreadableError,
  decryptCredentials,
  encryptCredentials,
} from '../../src/carrier-accounts/credentials.js';
import { deriveKey, deriveKeys, type KeyRing } from '../../src/secret.js';
import { TEST_SECRET } from '../helpers/app.js';

const key: KeyRing = [deriveKey(TEST_SECRET, 'credentials')];
const OTHER_SECRET = 'another-secret-another-secret-another-secret';
const credentials = { accountSid: 'AC0123456789abcdef0123456789abcdef', authToken: 'auth-token-very-secret' };

describe('carrier credentials at rest', () => {
  test('round trip: what is sealed for an account opens for that account', () => {
    const sealed = encryptCredentials(key, 'car_one', credentials);
    assert.deepEqual(decryptCredentials(key, 'car_one', sealed), credentials);
  });

  test('the sealed text is base64url and holds no credential in the clear', () => {
    const sealed = encryptCredentials(key, 'car_one', credentials);
    assert.match(sealed, /^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(sealed, 'base64url');
    assert.equal(bytes.includes(credentials.authToken), false);
    assert.equal(sealed.includes(credentials.authToken), false);
  });

  test('a fresh IV each time: sealing the same credentials twice gives different texts', () => {
    assert.notEqual(
      encryptCredentials(key, 'car_one', credentials),
      encryptCredentials(key, 'car_one', credentials),
    );
  });

  test('tampering with any part (iv, tag or ciphertext) is detected', () => {
    const bytes = Buffer.from(encryptCredentials(key, 'car_one', credentials), 'base64url');
    for (const at of [0, 12, 28, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] = (altered[at] ?? 0) ^ 0x01;
      assert.throws(
        () => decryptCredentials(key, 'car_one', altered.toString('base64url')),
        CredentialsUnreadableError,
        `byte ${at}`,
      );
    }
    assert.throws(
      () => decryptCredentials(key, 'car_one', bytes.subarray(0, 20).toString('base64url')),
      CredentialsUnreadableError,
    );
  });

  test('the account id is bound in: another account id cannot open it', () => {
    const sealed = encryptCredentials(key, 'car_one', credentials);
    assert.throws(() => decryptCredentials(key, 'car_two', sealed), CredentialsUnreadableError);
  });

  test('another server secret cannot open it', () => {
    const sealed = encryptCredentials(key, 'car_one', credentials);
    const other = deriveKeys({ current: OTHER_SECRET }, 'credentials');
    assert.throws(() => decryptCredentials(other, 'car_one', sealed), CredentialsUnreadableError);
  });

  test('with the old secret as the previous one, what it sealed still opens; new seals use the current one', () => {
    const sealed = encryptCredentials(key, 'car_one', credentials);
    const rotated = deriveKeys({ current: OTHER_SECRET, previous: TEST_SECRET }, 'credentials');
    assert.deepEqual(decryptCredentials(rotated, 'car_one', sealed), credentials);
    const resealed = encryptCredentials(rotated, 'car_one', credentials);
    assert.deepEqual(decryptCredentials([rotated[0]], 'car_one', resealed), credentials);
    assert.throws(() => decryptCredentials(key, 'car_one', resealed), CredentialsUnreadableError);
  });
});
