// Test-mode keys (docs/api.md, "Test mode"): `pv_test_` + the live key's body and checksum rule; a key row records
// its mode and the schema refuses a row whose mode disagrees with its prefix; the key service makes either mode
// (live by default) and refuses any other; and a malformed, unknown, revoked or expired pv_test_ key gets exactly
// the 401 a pv_live_ key gets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import {
  displayPrefix,
  generateKey,
  isWellFormedKey,
  KEY_PREFIX,
  modeOfKey,
  TEST_KEY_PREFIX,
} from '../../src/keys/key-format.js';
import type { Problem } from '../helpers/api-types.js';
import { json, seedWorkspace, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { clockedApp } from '../helpers/verification.js';

const flipAt = (key: string, i: number) =>
  key.slice(0, i) + (key.charAt(i) === 'a' ? 'b' : 'a') + key.slice(i + 1);

describe('key-format: test keys', () => {
  test('pv_test_ + 32 random base62 + a 6-character checksum; well formed; its mode is test', () => {
    assert.equal(TEST_KEY_PREFIX, 'pv_test_');
    for (let i = 0; i < 100; i++) {
      const key = generateKey('test');
      assert.match(key, /^pv_test_[0-9A-Za-z]{38}$/);
      assert.equal(isWellFormedKey(key), true, key);
      assert.equal(modeOfKey(key), 'test');
      assert.equal(displayPrefix(key), key.slice(0, 12));
    }
    assert.equal(modeOfKey(generateKey()), 'live');
    assert.ok(generateKey('live').startsWith(KEY_PREFIX));
  });

  test('the checksum covers the prefix: a test key relabelled live (or the reverse) is malformed', () => {
    const testKey = generateKey('test');
    const liveKey = generateKey('live');
    assert.equal(isWellFormedKey(KEY_PREFIX + testKey.slice(8)), false);
    assert.equal(isWellFormedKey(TEST_KEY_PREFIX + liveKey.slice(8)), false);
  });

  test('any one character of the body or checksum changed, and junk around it, is malformed', () => {
    const key = generateKey('test');
    for (let i = 8; i < key.length; i++) assert.equal(isWellFormedKey(flipAt(key, i)), false, `at ${i}`);
    for (const bad of [
      `${key} `,
      ` ${key}`,
      `${key}\u0000`,
      key.toUpperCase(),
      key.replace('pv_test_', 'pv_tést_'),
      key.replace('pv_test_', 'pv_Test_'),
      'pv_test_',
      `pv_test_${'a'.repeat(10_000)}`,
    ]) {
      assert.equal(isWellFormedKey(bad), false, JSON.stringify(bad.slice(0, 40)));
    }
  });
});

describe('test keys over HTTP: 401 exactly as for live keys', () => {
  let t: TestApp;
  let clock: FakeClock;
  let workspaceId: string;
  let liveKey: string;
  let testKey: string;
  const ping = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/v1/ping', headers });
  const bearer = (k: string) => ping({ authorization: `Bearer ${k}` });
  const body = (res: LightMyRequestResponse) => {
    const { request_id: _, ...rest } = json<Problem>(res);
    return JSON.stringify(rest);
  };

  before(async () => {
    ({ t, clock } = await clockedApp());
    const seeded = await seedWorkspace(t.services);
    workspaceId = seeded.workspaceId;
    liveKey = seeded.key;
    testKey = (await t.services.keys.createKey({ workspaceId, name: 'suite', mode: 'test' }, OPERATOR)).key;
  });
  after(() => t.close());

  test('a test key works: ping answers 200 with its workspace', async () => {
    const res = await bearer(testKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(json(res).workspace_id, workspaceId);
    assert.equal((await ping({ 'x-api-key': testKey })).statusCode, 200);
  });

  const malformations: [string, (k: string) => string][] = [
    ['one character short', (k) => k.slice(0, -1)],
    ['one character long', (k) => `${k}x`],
    ['a body character changed', (k) => flipAt(k, 13)],
    ['a checksum character changed', (k) => flipAt(k, k.length - 2)],
    ['no prefix', (k) => k.slice(8)],
    ['odd Unicode in the body', (k) => `${k.slice(0, 20)}é${k.slice(21)}`],
    ['a huge key', (k) => k + 'a'.repeat(4000)],
  ];
  for (const [name, spoil] of malformations) {
    test(`${name}: 401 malformed_api_key, the very body a live key gets`, async () => {
      const asTest = await bearer(spoil(testKey));
      const asLive = await bearer(spoil(liveKey));
      assert.equal(asTest.statusCode, 401, asTest.body);
      assert.equal(json<Problem>(asTest).code, 'malformed_api_key');
      assert.equal(body(asTest), body(asLive));
      assert.equal(asTest.headers['content-type'], asLive.headers['content-type']);
    });
  }

  test('unknown, revoked and expired test keys: 401 invalid_api_key, the body of an unknown live key', async () => {
    const unknownLive = await bearer(generateKey('live'));
    const unknownTest = await bearer(generateKey('test'));
    const revoked = await t.services.keys.createKey({ workspaceId, name: 'r', mode: 'test' }, OPERATOR);
    assert.equal((await bearer(revoked.key)).statusCode, 200);
    await t.services.keys.revokeKey(workspaceId, revoked.id, OPERATOR);
    const expiring = await t.services.keys.createKey(
      { workspaceId, name: 'e', mode: 'test', expiresInSeconds: 1 },
      OPERATOR,
    );
    clock.advance(1_000);
    for (const res of [unknownTest, await bearer(revoked.key), await bearer(expiring.key)]) {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(body(res), body(unknownLive));
    }
  });
});

describe('key service: the mode of a key', () => {
  let t: TestApp;
  let workspaceId: string;

  before(async () => {
    ({ t } = await clockedApp());
    workspaceId = (await seedWorkspace(t.services)).workspaceId;
  });
  after(() => t.close());

  test('live by default; test on request; lists and the audit trail say which', async () => {
    const live = await t.services.keys.createKey({ workspaceId, name: 'web' }, OPERATOR);
    const test_ = await t.services.keys.createKey({ workspaceId, name: 'ci', mode: 'test' }, OPERATOR);
    assert.equal(live.mode, 'live');
    assert.ok(live.prefix.startsWith('pv_live_'));
    assert.equal(test_.mode, 'test');
    assert.ok(test_.prefix.startsWith('pv_test_'));
    assert.ok(test_.key.startsWith(test_.prefix));
    const listed = await t.services.keys.listKeys(workspaceId);
    assert.equal(listed.find((k) => k.id === test_.id)?.mode, 'test');
    assert.equal(listed.find((k) => k.id === live.id)?.mode, 'live');
    const entry = await t.store.db
      .selectFrom('audit_log')
      .select('details')
      .where('target', '=', test_.id)
      .executeTakeFirstOrThrow();
    assert.equal((JSON.parse(entry.details) as { mode: string }).mode, 'test');
  });

  test('any other mode is 400 invalid_request naming mode, and makes no key', async () => {
    const before = (await t.services.keys.listKeys(workspaceId)).length;
    for (const mode of [
      'TEST',
      'Live',
      'prod',
      '',
      ' test',
      'test\u0000',
      'tést',
      'ｔｅｓｔ',
      'x'.repeat(100_000),
    ]) {
      await assert.rejects(
        t.services.keys.createKey({ workspaceId, name: 'bad', mode }, OPERATOR),
        (err: Error & { code?: string; extras?: { errors?: { field: string }[] } }) => {
          assert.equal(err.code, 'invalid_request', JSON.stringify(mode.slice(0, 20)));
          assert.deepEqual(
            err.extras?.errors?.map((e) => e.field),
            ['mode'],
          );
          assert.equal(err.message.includes(mode.slice(0, 50)) && mode.length > 5, false);
          return true;
        },
      );
    }
    assert.equal((await t.services.keys.listKeys(workspaceId)).length, before);
  });

  test('the schema refuses a key row whose mode disagrees with its prefix, or an unknown mode', async () => {
    const row = (id: string, prefix: string, mode: string) => ({
      id,
      workspace_id: workspaceId,
      name: 'forged',
      key_hash: `hash-${id}`,
      prefix,
      scopes: '["otp"]',
      created_at: 1,
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      mode: mode as 'live',
    });
    for (const [id, prefix, mode] of [
      ['key_forged1', 'pv_live_abcd', 'test'],
      ['key_forged2', 'pv_test_abcd', 'live'],
      ['key_forged3', 'pv_prod_abcd', 'prod'],
    ] as const) {
      await assert.rejects(
        t.store.db.transaction().execute((tx) =>
          tx
            .insertInto('api_keys')
            .values(row(id, prefix, mode))
            .execute(),
        ),
        /check|constraint/i,
        `${prefix} / ${mode}`,
      );
    }
    const ok = await t.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', 'like', 'key_forged%')
      .execute();
    assert.deepEqual(ok, []);
  });
});
