// Issue 11 item 5: passwords are hashed with OWASP's current scrypt parameters (N=2^17, r=8, p=1: 128 MiB, above
// Node's default memory cap), and a hash stored with older parameters is replaced at the next successful
// sign-in. A stored hash that asks for absurd parameters is refused, never derived.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/accounts/password.js';
import { OPERATOR } from '../../src/audit/actor.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { PASSWORD } from '../helpers/dashboard.js';

const CURRENT = /^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/;

describe('password hashing', () => {
  let t: TestApp;
  before(async () => {
    // The service's own default hasher, as every CLI and serving process has it (other suites hash cheaper).
    t = await createTestApp({ servicePasswordCost: true });
  });
  after(() => t.close());

  const storedHash = async (email: string) =>
    (
      await t.store.db
        .selectFrom('users')
        .select('password_hash')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).password_hash;

  test('a new hash uses N=2^17, r=8, p=1 and verifies', async () => {
    const hash = await hashPassword(PASSWORD);
    assert.match(hash, CURRENT);
    assert.equal(await verifyPassword(PASSWORD, hash), true);
    assert.equal(await verifyPassword('not the password', hash), false);
  });

  test('an account made today stores a hash with those parameters', async () => {
    await t.services.accounts.createAccount({ email: 'new@example.com', password: PASSWORD }, OPERATOR);
    assert.match(await storedHash('new@example.com'), CURRENT);
  });

  test('a hash with older parameters still verifies, and the next successful sign-in replaces it (a wrong password does not)', async () => {
    const email = 'old@example.com';
    const { workspaceId } = await seedWorkspace(t.services);
    await t.services.accounts.createAccount(
      { email, password: PASSWORD, workspaceIds: [workspaceId] },
      OPERATOR,
    );
    const old = await hashPassword(PASSWORD, { N: 2 ** 15, r: 8, p: 1 });
    assert.match(old, /^scrypt\$32768\$8\$1\$/);
    await t.store.db.updateTable('users').set({ password_hash: old }).where('email', '=', email).execute();

    const signIn = (password: string) =>
      t.services.accounts.signIn({ email, password, address: '192.0.2.7' });
    await assert.rejects(signIn('not the password'), { code: 'invalid_credentials' });
    assert.equal(await storedHash(email), old, 'a failed sign-in changes nothing');

    await signIn(PASSWORD);
    const rehashed = await storedHash(email);
    assert.match(rehashed, CURRENT);
    assert.equal(await verifyPassword(PASSWORD, rehashed), true);
    // And the next sign-in uses it as it is.
    await signIn(PASSWORD);
    assert.equal(await storedHash(email), rehashed);
  });

  test('a stored hash with absurd or broken parameters is refused without deriving (no error, no huge allocation)', async () => {
    const salt = 'AAAAAAAAAAAAAAAAAAAAAA';
    const key = 'A'.repeat(43);
    for (const stored of [
      `scrypt$${2 ** 30}$8$1$${salt}$${key}`,
      `scrypt$131072$4096$1$${salt}$${key}`,
      `scrypt$131072$8$1000$${salt}$${key}`,
      `scrypt$1000$8$1$${salt}$${key}`,
      `scrypt$-2$8$1$${salt}$${key}`,
      `scrypt$abc$8$1$${salt}$${key}`,
      `scrypt$131072$8$1$${salt}`,
      `bcrypt$10$${salt}$${key}`,
      '',
    ]) {
      assert.equal(await verifyPassword(PASSWORD, stored), false, stored);
    }
  });
});
