// PHONE_VERIFY_PREVIOUS_SECRET as the configuration reads it (src/config.ts) and the secrets are loaded
// (src/secret.ts): empty is unset, too short is refused without echoing it, the same as the current secret is
// refused, and a NUL byte neither truncates a secret nor can reach one through the environment.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { deriveKeys, loadServerSecrets } from '../../src/secret.js';

const CURRENT = 'the-current-secret-the-current-0123456789';
const PREVIOUS = 'the-previous-secret-the-previous-0123456';

describe('PHONE_VERIFY_PREVIOUS_SECRET', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-secret-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('read by the configuration; empty counts as unset', () => {
    const env = { PHONE_VERIFY_SECRET: CURRENT };
    assert.equal(loadConfig({ ...env, PHONE_VERIFY_PREVIOUS_SECRET: PREVIOUS }).previousSecret, PREVIOUS);
    assert.equal(loadConfig({ ...env, PHONE_VERIFY_PREVIOUS_SECRET: '' }).previousSecret, undefined);
    assert.equal(loadConfig(env).previousSecret, undefined);
  });

  test('shorter than 32 characters: refused, naming the variable, never its value', () => {
    const short = 'a-31-character-previous-secret!';
    assert.equal(short.length, 31);
    assert.throws(
      () => loadConfig({ PHONE_VERIFY_PREVIOUS_SECRET: short }),
      (err: Error) =>
        err instanceof ConfigError &&
        /^invalid PHONE_VERIFY_PREVIOUS_SECRET: /.test(err.message) &&
        !err.message.includes(short),
    );
  });

  test('the same as the current secret: refused, never echoing it', () => {
    assert.throws(
      () => loadServerSecrets({ secret: CURRENT, previousSecret: CURRENT, dataDir: dir }),
      (err: Error) =>
        /PHONE_VERIFY_PREVIOUS_SECRET is the same as the current secret \(PHONE_VERIFY_SECRET\)/.test(
          err.message,
        ) && !err.message.includes(CURRENT),
    );
    assert.deepEqual(loadServerSecrets({ secret: CURRENT, previousSecret: PREVIOUS, dataDir: dir }), {
      current: CURRENT,
      previous: PREVIOUS,
      source: 'PHONE_VERIFY_SECRET',
    });
  });

  test('a NUL byte is part of the secret: it truncates nothing, so secrets differing after it differ', () => {
    const base = 'x'.repeat(32);
    const keysOf = (current: string) => deriveKeys({ current }, 'credentials')[0].toString('hex');
    const withNul = keysOf(`${base}\0a`);
    assert.notEqual(withNul, keysOf(`${base}\0b`));
    assert.notEqual(withNul, keysOf(base));
    // And a previous secret that differs from the current one only after a NUL is another secret.
    const secrets = loadServerSecrets({ secret: `${base}\0a`, previousSecret: `${base}\0b`, dataDir: dir });
    assert.equal(secrets.previous, `${base}\0b`);
    assert.equal(deriveKeys(secrets, 'credentials').length, 2);
  });

  test('a NUL byte cannot reach the variable through the environment: the process is never started', () => {
    assert.throws(
      () =>
        spawnSync(process.execPath, ['-e', ''], {
          env: { ...process.env, PHONE_VERIFY_PREVIOUS_SECRET: `${PREVIOUS}\0tail` },
        }),
      { code: 'ERR_INVALID_ARG_VALUE' },
    );
  });
});
