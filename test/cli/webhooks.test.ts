// Operator interface, CLI: `webhook add|list|remove|enable|rotate-secret` through the real built CLI, and every input
// attacked: URLs (schemes, credentials, control and invisible characters, huge, private addresses), event lists,
// ids, and WEBHOOK_ALLOW_PRIVATE itself.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { openStore } from '../../src/store/database.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/vocabulary/webhook-events.js';
import * as repo from '../../src/webhooks/repository.js';
import { assertCleanFailure, cliSuiteEnv, createWorkspace, jsonOf, TIMESTAMP } from '../helpers/cli-setup.js';
import { cliJson, runCli } from '../helpers/process.js';

type Added = { id: string; url: string; events: string[] | null; secret: string; created_at: string };

describe('CLI: webhook commands', () => {
  const { env } = cliSuiteEnv();
  let ws = '';
  before(() => {
    ws = createWorkspace(env);
  });

  test('webhook add --json prints { id, url, events, secret, created_at }; no --events: every type (null)', () => {
    const added = jsonOf<Added>(
      runCli(['webhook', 'add', '--workspace', ws, '--url', 'https://hooks.example.com/pv', '--json'], env),
    );
    assert.deepEqual(Object.keys(added).sort(), ['created_at', 'events', 'id', 'secret', 'url']);
    assert.match(added.id, /^wh_[0-9A-Za-z]{24}$/);
    assert.equal(added.url, 'https://hooks.example.com/pv');
    assert.equal(added.events, null);
    assert.match(added.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.match(added.created_at, TIMESTAMP);
  });

  test('--events: the types named, in the catalogue order, each once', () => {
    const added = cliJson<Added>(
      [
        'webhook',
        'add',
        '--workspace',
        ws,
        '--url',
        'https://hooks.example.com/x',
        '--events',
        'verification.verified, verification.created,verification.verified',
      ],
      env,
    );
    assert.deepEqual(added.events, ['verification.created', 'verification.verified']);
  });

  test('unknown or empty --events: a clean failure listing the valid types', () => {
    for (const events of [
      'verification.nope',
      '',
      ',',
      'VERIFICATION.CREATED',
      'verification.created\u0001',
    ]) {
      const result = runCli(
        [
          'webhook',
          'add',
          '--workspace',
          ws,
          '--url',
          'https://hooks.example.com/',
          '--events',
          events,
          '--json',
        ],
        env,
      );
      assertCleanFailure(result, /--events: /);
      for (const type of WEBHOOK_EVENT_TYPES) assert.ok(result.stderr.includes(type), result.stderr);
    }
  });

  test('bad URLs are refused with a clean failure naming --url', () => {
    for (const url of [
      'hooks.example.com',
      'ftp://hooks.example.com/',
      'https://user:secret@hooks.example.com/',
      'https://hooks.example.com/\u0001',
      'https://hooks.example.com/\u202egnp',
      'https://hooks.example.com/\u200b',
      `https://hooks.example.com/${'x'.repeat(5000)}`,
      'http://127.0.0.1:9/',
      'http://169.254.169.254/',
      'http://[::ffff:10.0.0.1]/',
      'http://localhost/',
    ]) {
      assertCleanFailure(
        runCli(['webhook', 'add', '--workspace', ws, '--url', url, '--json'], env),
        /--url: /,
      );
    }
    assertCleanFailure(runCli(['webhook', 'add', '--workspace', ws, '--json'], env), /--url is required/);
  });

  test('https only with NODE_ENV=production; private destinations only with WEBHOOK_ALLOW_PRIVATE=true', () => {
    assertCleanFailure(
      runCli(['webhook', 'add', '--workspace', ws, '--url', 'http://hooks.example.com/', '--json'], {
        ...env,
        NODE_ENV: 'production',
      }),
      /--url: must be an https:\/\/ URL/,
    );
    const local = cliJson<Added>(['webhook', 'add', '--workspace', ws, '--url', 'http://127.0.0.1:9/h'], {
      ...env,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    assert.equal(local.url, 'http://127.0.0.1:9/h');
    assertCleanFailure(
      runCli(['webhook', 'list', '--workspace', ws, '--json'], { ...env, WEBHOOK_ALLOW_PRIVATE: 'yes' }),
      /WEBHOOK_ALLOW_PRIVATE/,
    );
  });

  test('unknown workspaces and ids: clean failures', () => {
    assertCleanFailure(
      runCli(['webhook', 'add', '--workspace', 'ws_nope', '--url', 'https://a.example.com/', '--json'], env),
      /No workspace/,
    );
    assertCleanFailure(runCli(['webhook', 'list', '--workspace', 'ws\u0001x', '--json'], env), /--workspace/);
    for (const id of ['wh_nope', 'wh_\u00e9\u0301', `wh_${'a'.repeat(500)}`, "wh_' OR 1=1 --"]) {
      assertCleanFailure(runCli(['webhook', 'remove', id, '--json'], env), /No webhook endpoint/);
      assertCleanFailure(runCli(['webhook', 'rotate-secret', id, '--json'], env), /No webhook endpoint/);
    }
    assertCleanFailure(runCli(['webhook', 'remove', '--json'], env), /usage: phone-verify webhook remove/);
  });

  test('webhook enable: a disabled endpoint is enabled again (same secret); an enabled one is left as it is', async () => {
    const added = cliJson<Added>(
      ['webhook', 'add', '--workspace', ws, '--url', 'https://e.example.com/'],
      env,
    );
    // Disabled as the delivery does after five days of failures (the flag and the workspace's count of enabled).
    const store = await openStore(env.DATABASE_URL ?? '');
    try {
      assert.ok(await repo.disableEndpoint(store.db, added.id, Date.now()));
      await repo.addToEndpointCount(store.db, ws, -1);
    } finally {
      await store.close();
    }
    const listed = () =>
      cliJson<{ id: string; status: string }[]>(['webhook', 'list', '--workspace', ws], env);
    assert.equal(listed().find((e) => e.id === added.id)?.status, 'disabled');
    const enabled = cliJson<{ id: string; status: string; disabled_at: string | null }>(
      ['webhook', 'enable', added.id],
      env,
    );
    assert.equal(enabled.id, added.id);
    assert.equal(enabled.status, 'enabled');
    assert.equal(enabled.disabled_at, null);
    assert.equal(JSON.stringify(enabled).includes(added.secret.slice(6)), false, 'no secret printed');
    assert.equal(listed().find((e) => e.id === added.id)?.status, 'enabled');
    // Again: no change, success.
    assert.equal(cliJson<{ status: string }>(['webhook', 'enable', added.id], env).status, 'enabled');
    for (const id of ['wh_nope', 'wh_\u0001', `wh_${'a'.repeat(500)}`, '\u202ewh_x']) {
      assertCleanFailure(runCli(['webhook', 'enable', id, '--json'], env), /No webhook endpoint/);
    }
    assertCleanFailure(runCli(['webhook', 'enable', '--json'], env), /usage: phone-verify webhook enable/);
    const help = runCli(['webhook', 'enable', '--help'], env);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /disabled after five days of failures/);
    const audit = cliJson<{ action: string; target: string }[]>(
      ['audit', 'list', '--workspace', ws, '--action', 'webhook.enabled'],
      env,
    );
    assert.deepEqual(
      audit.map((e) => e.target),
      [added.id],
    );
  });

  test('list shows no secret; rotate-secret prints a new one once; remove takes the endpoint away', () => {
    const added = cliJson<Added>(
      ['webhook', 'add', '--workspace', ws, '--url', 'https://r.example.com/'],
      env,
    );
    const listed = runCli(['webhook', 'list', '--workspace', ws, '--json'], env);
    const endpoints = jsonOf<{ id: string; status: string }[]>(listed);
    assert.ok(endpoints.some((e) => e.id === added.id && e.status === 'enabled'));
    assert.equal(listed.stdout.includes(added.secret.slice(6)), false);
    const rotated = cliJson<{ id: string; secret: string; previous_secret_expires_at: string }>(
      ['webhook', 'rotate-secret', added.id],
      env,
    );
    assert.equal(rotated.id, added.id);
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, added.secret);
    assert.match(rotated.previous_secret_expires_at, TIMESTAMP);
    const removed = cliJson<{ id: string }>(['webhook', 'remove', added.id], env);
    assert.equal(removed.id, added.id);
    const after = cliJson<{ id: string }[]>(['webhook', 'list', '--workspace', ws], env);
    assert.equal(
      after.some((e) => e.id === added.id),
      false,
    );
    assertCleanFailure(runCli(['webhook', 'remove', added.id, '--json'], env), /No webhook endpoint/);
    // The plain output also prints the secret once, with a note on stderr.
    const plain = runCli(['webhook', 'add', '--workspace', ws, '--url', 'https://p.example.com/'], env);
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /secret\s+whsec_/);
    assert.match(plain.stderr, /shown this once/);
  });
});
