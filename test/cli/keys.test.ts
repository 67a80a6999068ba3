// Operator interface, CLI commands: `key create`, `key revoke`, `key list`, through the real built CLI.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { createServices } from '../../src/services.js';
import { openStore } from '../../src/store/database.js';
import { TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCli } from '../helpers/process.js';

const KEY_SHAPE = /^pv_live_[0-9A-Za-z]{38}$/;
const CREATE_FIELDS = ['created_at', 'expires_at', 'id', 'key', 'name', 'scopes'];

type KeyRecord = Record<string, unknown> & { id: string; key?: string; scopes: string[] };

describe('CLI: key commands', () => {
  const { env } = cliSuiteEnv();
  let wsId = '';
  const created: KeyRecord[] = [];

  before(() => {
    wsId = createWorkspace(env);
  });

  test('key create --json prints { id, name, key, scopes, created_at, expires_at }; key is pv_live_…, scopes default to otp', () => {
    const k = jsonOf<KeyRecord>(
      runCli(['key', 'create', '--workspace', wsId, '--name', 'backend', '--json'], env),
    );
    created.push(k);
    // The interface's fields are all there (the record may carry more, e.g. workspace_id and prefix).
    for (const field of CREATE_FIELDS) assert.ok(field in k, `missing ${field}`);
    assert.match(k.id, /^key_[0-9A-Za-z]{24}$/);
    assert.equal(k.name, 'backend');
    assert.match(String(k.key), KEY_SHAPE);
    assert.deepEqual(k.scopes, ['otp']);
    assert.match(String(k.created_at), TIMESTAMP);
    assert.equal(k.expires_at, null);
    // Nothing in the record repeats the secret part of the key apart from `key` itself.
    const { key, ...rest } = k;
    assert.equal(JSON.stringify(rest).includes(String(key).slice(12)), false);
  });

  test('key create --scopes "" makes a key with no scope; --scopes otp gives otp', () => {
    const none = cliJson<KeyRecord>(
      ['key', 'create', '--workspace', wsId, '--name', 'no scope', '--scopes', ''],
      env,
    );
    created.push(none);
    assert.deepEqual(none.scopes, []);
    assert.match(String(none.key), KEY_SHAPE);
    const otp = cliJson<KeyRecord>(
      ['key', 'create', '--workspace', wsId, '--name', 'otp', '--scopes', 'otp'],
      env,
    );
    created.push(otp);
    assert.deepEqual(otp.scopes, ['otp']);
  });

  test('key create --expires-in SECONDS sets expires_at that many seconds after created_at', () => {
    const k = cliJson<KeyRecord>(
      ['key', 'create', '--workspace', wsId, '--name', 'short-lived', '--expires-in', '3600'],
      env,
    );
    created.push(k);
    assert.match(String(k.expires_at), TIMESTAMP);
    assert.equal(Date.parse(String(k.expires_at)) - Date.parse(String(k.created_at)), 3_600_000);
  });

  test('key list --workspace --json is an array of every key record, never containing the key', () => {
    const result = runCli(['key', 'list', '--workspace', wsId, '--json'], env);
    const list = jsonOf<KeyRecord[]>(result);
    assert.ok(Array.isArray(list));
    assert.deepEqual(list.map((k) => k.id).sort(), created.map((k) => k.id).sort());
    for (const k of list) {
      assert.equal('key' in k, false);
      const mine = created.find((c) => c.id === k.id);
      assert.ok(mine);
      assert.equal(k.name, mine.name);
      assert.deepEqual(k.scopes, mine.scopes);
      assert.equal(k.created_at, mine.created_at);
      assert.equal(k.expires_at, mine.expires_at);
    }
    for (const k of created) assert.equal(result.stdout.includes(String(k.key).slice(12)), false);
    // The human-readable table does not show the key either.
    const table = runCli(['key', 'list', '--workspace', wsId], env);
    assert.equal(table.status, 0, table.stderr);
    for (const k of created) {
      assert.ok(table.stdout.includes(k.id));
      assert.equal(table.stdout.includes(String(k.key).slice(12)), false);
    }
  });

  test('key revoke KEY_ID --json prints the key record without `key`, with revoked_at set', () => {
    const target = created[0];
    assert.ok(target);
    const r = jsonOf<KeyRecord>(runCli(['key', 'revoke', target.id, '--json'], env));
    assert.equal('key' in r, false);
    assert.equal(r.id, target.id);
    assert.equal(r.name, target.name);
    assert.deepEqual(r.scopes, target.scopes);
    assert.equal(r.created_at, target.created_at);
    assert.match(String(r.revoked_at), TIMESTAMP);
    assert.equal(r.status, 'revoked');
    assert.equal(JSON.stringify(r).includes(String(target.key).slice(12)), false);
    // key list shows it revoked as well.
    const listed = cliJson<KeyRecord[]>(['key', 'list', '--workspace', wsId], env).find(
      (k) => k.id === target.id,
    );
    assert.equal(listed?.revoked_at, r.revoked_at);
  });

  test('the 26th active key of a workspace is refused; revoking one makes room again', async () => {
    const ws = createWorkspace(env, 'Full');
    // 24 keys made directly through the same services the CLI calls (spawning 24 processes adds nothing),
    // then the 25th through the CLI, which must still succeed.
    const store = await openStore(env.DATABASE_URL as string);
    try {
      const services = createServices({ store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
      for (let i = 1; i <= 24; i++)
        await services.keys.createKey({ workspaceId: ws, name: `key ${i}` }, OPERATOR);
    } finally {
      await store.close();
    }
    const twentyFifth = cliJson<KeyRecord>(['key', 'create', '--workspace', ws, '--name', 'key 25'], env);
    assert.match(String(twentyFifth.key), KEY_SHAPE);

    const refused = runCli(['key', 'create', '--workspace', ws, '--name', 'key 26', '--json'], env);
    assertCleanFailure(refused, /25 active keys/);
    assert.equal(cliJson<KeyRecord[]>(['key', 'list', '--workspace', ws], env).length, 25);

    cliJson(['key', 'revoke', twentyFifth.id], env);
    const afterRevoke = cliJson<KeyRecord>(['key', 'create', '--workspace', ws, '--name', 'key 26'], env);
    assert.match(String(afterRevoke.key), KEY_SHAPE);
  });
});
