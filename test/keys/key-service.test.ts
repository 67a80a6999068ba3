// Spec section 5 (keys: created and shown once, only a hash stored, revocation, scopes) and section 8
// ("Active keys per workspace: 25"), through the key service the CLI and dashboard use.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AppError } from '../../src/errors.js';
import { hashKey, isWellFormedKey, KEY_PREFIX } from '../../src/keys/key-format.js';
import { MAX_ACTIVE_KEYS } from '../../src/keys/service.js';
import type { TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { clockedApp } from '../helpers/verification.js';

function isAppError(code: string) {
  return (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  };
}

/** The principal of a key, as a request that needs no scope resolves it (counted in window 0). */
const authenticate = async (t: TestApp, key: string) => (await t.services.keys.admit(key, null, 0)).principal;

describe('key service: create, list, revoke (spec 5)', () => {
  let t: TestApp;
  let clock: FakeClock;

  before(async () => {
    ({ t, clock } = await clockedApp());
  });
  after(() => t.close());

  const newWorkspace = async (name = 'Keys Co') =>
    (await t.services.workspaces.createWorkspace({ name }, OPERATOR)).id;

  test('last_used_at: set on first use, kept within a minute, moved on after it (at most one write a minute)', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey({ workspaceId: ws, name: 'usage' }, OPERATOR);
    const lastUsed = async () =>
      (await t.services.keys.listKeys(ws)).find((k) => k.id === created.id)?.last_used_at;
    const first = clock.now();
    await authenticate(t, created.key);
    assert.equal(await lastUsed(), new Date(first).toISOString());
    clock.advance(30_000);
    await authenticate(t, created.key);
    assert.equal(await lastUsed(), new Date(first).toISOString(), 'unchanged within the minute');
    clock.advance(31_000);
    await authenticate(t, created.key);
    assert.equal(await lastUsed(), new Date(clock.now()).toISOString(), 'moved on after the minute');
  });

  test('createKey returns the key once, well formed, with an active view and default otp scope', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey({ workspaceId: ws, name: 'backend' }, OPERATOR);
    assert.equal(isWellFormedKey(created.key), true);
    assert.match(created.id, /^key_[0-9A-Za-z]{24}$/);
    assert.equal(created.workspace_id, ws);
    assert.equal(created.name, 'backend');
    assert.equal(created.prefix, created.key.slice(0, KEY_PREFIX.length + 4));
    assert.deepEqual(created.scopes, ['otp']);
    assert.equal(created.status, 'active');
    assert.equal(created.created_at, new Date(clock.now()).toISOString());
    assert.equal(created.expires_at, null);
    assert.equal(created.revoked_at, null);
    assert.equal(created.last_used_at, null);
  });

  test('createKey with expiresInSeconds sets expires_at from the clock', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey(
      { workspaceId: ws, name: 'short', expiresInSeconds: 90 },
      OPERATOR,
    );
    assert.equal(created.expires_at, new Date(clock.now() + 90_000).toISOString());
  });

  test('createKey with scopes [] holds no scope; duplicate scopes collapse', async () => {
    const ws = await newWorkspace();
    assert.deepEqual(
      (await t.services.keys.createKey({ workspaceId: ws, name: 'none', scopes: [] }, OPERATOR)).scopes,
      [],
    );
    const dup = await t.services.keys.createKey(
      { workspaceId: ws, name: 'dup', scopes: ['otp', 'otp'] },
      OPERATOR,
    );
    assert.deepEqual(dup.scopes, ['otp']);
  });

  test('createKey refuses an unknown scope, a bad name, a bad expiry and an unknown workspace', async () => {
    const ws = await newWorkspace();
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'x', scopes: ['admin'] }, OPERATOR),
      isAppError('invalid_request'),
    );
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: '   ' }, OPERATOR),
      isAppError('invalid_request'),
    );
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'x'.repeat(101) }, OPERATOR),
      isAppError('invalid_request'),
    );
    for (const expiresInSeconds of [0, -1, 1.5, Number.NaN]) {
      await assert.rejects(
        t.services.keys.createKey({ workspaceId: ws, name: 'x', expiresInSeconds }, OPERATOR),
        isAppError('invalid_request'),
      );
    }
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: 'ws_000000000000000000000000', name: 'x' }, OPERATOR),
      isAppError('not_found'),
    );
    assert.deepEqual(await t.services.keys.listKeys(ws), []);
  });

  test('only a hash is stored: the api_keys row holds the SHA-256, never the key text', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey({ workspaceId: ws, name: 'hashed' }, OPERATOR);
    const row = await t.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.key_hash, hashKey(created.key));
    const random = created.key.slice(KEY_PREFIX.length);
    for (const value of Object.values(row)) {
      assert.equal(String(value).includes(random.slice(4)), false, `column holds key text: ${value}`);
    }
  });

  test('listKeys shows every key of the workspace with its status, and never the key or its hash', async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace('Other');
    const a = await t.services.keys.createKey({ workspaceId: ws, name: 'a' }, OPERATOR);
    const b = await t.services.keys.createKey({ workspaceId: ws, name: 'b' }, OPERATOR);
    const c = await t.services.keys.createKey({ workspaceId: ws, name: 'c', expiresInSeconds: 60 }, OPERATOR);
    await t.services.keys.createKey({ workspaceId: other, name: 'elsewhere' }, OPERATOR);
    await t.services.keys.revokeKey(ws, b.id, OPERATOR);
    clock.advance(60_000);
    const list = await t.services.keys.listKeys(ws);
    assert.deepEqual(Object.fromEntries(list.map((k) => [k.id, k.status])), {
      [a.id]: 'active',
      [b.id]: 'revoked',
      [c.id]: 'expired',
    });
    const text = JSON.stringify(list);
    for (const k of [a, b, c]) {
      assert.equal(text.includes(k.key), false);
      assert.equal(text.includes(hashKey(k.key)), false);
    }
    for (const k of list) assert.equal('key' in k, false);
  });

  test('revokeKey marks the key revoked at the current time and is idempotent', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey({ workspaceId: ws, name: 'to revoke' }, OPERATOR);
    const revokedAt = new Date(clock.now()).toISOString();
    const revoked = await t.services.keys.revokeKey(ws, created.id, OPERATOR);
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.revoked_at, revokedAt);
    clock.advance(5_000);
    const again = await t.services.keys.revokeKey(ws, created.id, OPERATOR);
    assert.equal(again.status, 'revoked');
    assert.equal(again.revoked_at, revokedAt, 'a second revoke keeps the first revocation time');
  });

  test('revokeKey of an unknown id is not_found', async () => {
    const ws = await newWorkspace();
    await assert.rejects(
      t.services.keys.revokeKey(ws, 'key_000000000000000000000000', OPERATOR),
      isAppError('not_found'),
    );
  });

  test("revokeKey of another workspace's key is not_found and leaves it active", async () => {
    const mine = await newWorkspace();
    const theirs = await newWorkspace('Other Co');
    const key = await t.services.keys.createKey({ workspaceId: theirs, name: 'theirs' }, OPERATOR);
    await assert.rejects(t.services.keys.revokeKey(mine, key.id, OPERATOR), isAppError('not_found'));
    const [listed] = await t.services.keys.listKeys(theirs);
    assert.equal(listed?.status, 'active');
  });

  test('workspaceOfKey names the workspace of a key; an unknown id is not_found', async () => {
    const ws = await newWorkspace();
    const key = await t.services.keys.createKey({ workspaceId: ws, name: 'whose' }, OPERATOR);
    assert.equal(await t.services.keys.workspaceOfKey(key.id), ws);
    await assert.rejects(
      t.services.keys.workspaceOfKey('key_000000000000000000000000'),
      isAppError('not_found'),
    );
  });

  test('authenticate: the key resolves to its workspace, name and scopes; revoked/expired/unknown do not', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey(
      { workspaceId: ws, name: 'auth', expiresInSeconds: 120 },
      OPERATOR,
    );
    const principal = await authenticate(t, created.key);
    assert.equal(principal.keyId, created.id);
    assert.equal(principal.workspaceId, ws);
    assert.equal(principal.keyName, 'auth');
    assert.deepEqual([...principal.scopes], ['otp']);
    clock.advance(120_000);
    await assert.rejects(authenticate(t, created.key), isAppError('invalid_api_key'));
    const other = await t.services.keys.createKey({ workspaceId: ws, name: 'auth2' }, OPERATOR);
    await t.services.keys.revokeKey(ws, other.id, OPERATOR);
    await assert.rejects(authenticate(t, other.key), isAppError('invalid_api_key'));
    await assert.rejects(authenticate(t, 'pv_live_nope'), isAppError('malformed_api_key'));
  });
});

describe('key service: at most 25 active keys per workspace (spec 5, spec 8 "Active keys per workspace")', () => {
  let t: TestApp;
  let clock: FakeClock;

  before(async () => {
    ({ t, clock } = await clockedApp());
  });
  after(() => t.close());

  const newWorkspace = async () =>
    (await t.services.workspaces.createWorkspace({ name: 'Limit Co' }, OPERATOR)).id;
  const createMany = async (workspaceId: string, n: number, expiresInSeconds?: number) => {
    const keys = [];
    for (let i = 0; i < n; i++) {
      keys.push(await t.services.keys.createKey({ workspaceId, name: `k${i}`, expiresInSeconds }, OPERATOR));
    }
    return keys;
  };
  const activeCount = async (ws: string) =>
    (await t.services.keys.listKeys(ws)).filter((k) => k.status === 'active').length;

  test('the limit is 25', () => {
    assert.equal(MAX_ACTIVE_KEYS, 25);
  });

  test('25 keys are created; the 26th is refused with key_limit_reached (409)', async () => {
    const ws = await newWorkspace();
    await createMany(ws, 25);
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'k26' }, OPERATOR),
      (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'key_limit_reached');
        assert.equal(err.status, 409);
        return true;
      },
    );
    assert.equal((await t.services.keys.listKeys(ws)).length, 25);
  });

  test('the limit is per workspace: a full workspace does not block another', async () => {
    const full = await newWorkspace();
    await createMany(full, 25);
    const other = await newWorkspace();
    const created = await t.services.keys.createKey({ workspaceId: other, name: 'fine' }, OPERATOR);
    assert.equal(created.status, 'active');
  });

  test('revoked keys do not count: revoking one of 25 frees a place', async () => {
    const ws = await newWorkspace();
    const keys = await createMany(ws, 25);
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'k26' }, OPERATOR),
      isAppError('key_limit_reached'),
    );
    await t.services.keys.revokeKey(ws, keys[3]?.id ?? '', OPERATOR);
    const created = await t.services.keys.createKey({ workspaceId: ws, name: 'replacement' }, OPERATOR);
    assert.equal(created.status, 'active');
    assert.equal(await activeCount(ws), 25);
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'k27' }, OPERATOR),
      isAppError('key_limit_reached'),
    );
  });

  test('expired keys do not count: 25 expiring keys free all places once expired', async () => {
    const ws = await newWorkspace();
    await createMany(ws, 25, 60);
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'early' }, OPERATOR),
      isAppError('key_limit_reached'),
    );
    clock.advance(60_000);
    assert.equal(await activeCount(ws), 0);
    await createMany(ws, 25);
    assert.equal(await activeCount(ws), 25);
    await assert.rejects(
      t.services.keys.createKey({ workspaceId: ws, name: 'k26' }, OPERATOR),
      isAppError('key_limit_reached'),
    );
  });

  test('concurrent creation cannot exceed 25: 40 creations in parallel give exactly 25 keys', async () => {
    const ws = await newWorkspace();
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        t.services.keys.createKey({ workspaceId: ws, name: `p${i}` }, OPERATOR),
      ),
    );
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    assert.equal(created.length, 25);
    assert.equal(refused.length, 15);
    for (const r of refused) {
      assert.ok(r.reason instanceof AppError, String(r.reason));
      assert.equal(r.reason.code, 'key_limit_reached');
    }
    assert.equal(await activeCount(ws), 25);
    assert.equal((await t.services.keys.listKeys(ws)).length, 25);
  });

  test('concurrent creation on top of 20 existing keys cannot exceed 25 either', async () => {
    const ws = await newWorkspace();
    await createMany(ws, 20);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        t.services.keys.createKey({ workspaceId: ws, name: `q${i}` }, OPERATOR),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
    assert.equal(await activeCount(ws), 25);
  });

  test('the key text is nowhere in the database, only its hash', async () => {
    const ws = await newWorkspace();
    const created = await t.services.keys.createKey({ workspaceId: ws, name: 'on disk' }, OPERATOR);
    const secret = created.key.slice(KEY_PREFIX.length + 4);
    // Every row of every table, on either store: the key's random part appears in none.
    const db = t.store.db;
    for (const table of [
      'workspaces',
      'workspace_numbers',
      'api_keys',
      'verifications',
      'outbox_messages',
      'phone_locks',
      'request_counters',
    ] as const) {
      const rows = await db.selectFrom(table).selectAll().execute();
      assert.equal(JSON.stringify(rows).includes(secret), false, `table ${table} holds the key text`);
    }
    // And on SQLite every byte the store wrote (main file, WAL, shared memory).
    for (const file of readdirSync(t.dir)) {
      const bytes = readFileSync(join(t.dir, file));
      assert.equal(bytes.includes(secret), false, `${file} holds the key text`);
    }
    const row = await t.store.db
      .selectFrom('api_keys')
      .select('key_hash')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.key_hash, hashKey(created.key));
  });
});
