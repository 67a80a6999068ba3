// Issue 12, item 6: the retention sweep prunes audit entries older than AUDIT_RETENTION_DAYS (default 365) and
// keeps newer ones, by the injected clock; the setting is read from the environment and a bad value stops the
// process with a one-line reason.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { ConfigError, DEFAULT_AUDIT_RETENTION_DAYS, loadConfig } from '../../src/config.js';
import { createServices } from '../../src/services.js';
import { createTestApp, TEST_PUBLIC_URL, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { entriesOf } from '../helpers/audit.js';
import { assertCleanFailure, cliSuiteEnv } from '../helpers/cli-setup.js';
import { fakeClock } from '../helpers/clock.js';
import { runCli } from '../helpers/process.js';

const DAY = 86_400_000;

describe('audit trail: retention', () => {
  const apps: TestApp[] = [];
  after(async () => {
    for (const app of apps) await app.close();
  });

  async function appWith(auditRetentionDays?: number) {
    const clock = fakeClock();
    const t = await createTestApp({ clock, auditRetentionDays });
    apps.push(t);
    return { t, clock };
  }

  test('entries older than the setting are pruned, newer ones kept', async () => {
    const { t, clock } = await appWith(30);
    const ws = await t.services.workspaces.createWorkspace({ name: 'Old Co' }, OPERATOR);
    clock.advance(10 * DAY);
    await t.services.keys.createKey({ workspaceId: ws.id, name: 'ten days later' }, OPERATOR);

    clock.advance(20 * DAY - 1);
    assert.equal((await t.services.retention.prune()).audit, 0, 'not yet 30 days old');
    assert.equal((await entriesOf(t.services, ws.id)).length, 2);

    clock.advance(2);
    const pruned = await t.services.retention.prune();
    assert.equal(pruned.audit, 1);
    assert.deepEqual(
      (await entriesOf(t.services, ws.id)).map((e) => e.action),
      ['key.created'],
      'the entry made 10 days later is kept',
    );

    clock.advance(10 * DAY);
    assert.equal((await t.services.retention.prune()).audit, 1);
    assert.deepEqual(await entriesOf(t.services, ws.id), []);
  });

  test('the default keeps a year: 365 days', async () => {
    assert.equal(DEFAULT_AUDIT_RETENTION_DAYS, 365);
    const { t, clock } = await appWith();
    const ws = await t.services.workspaces.createWorkspace({ name: 'Year Co' }, OPERATOR);
    clock.advance(365 * DAY - 1);
    assert.equal((await t.services.retention.prune()).audit, 0);
    assert.equal((await entriesOf(t.services, ws.id)).length, 1);
    clock.advance(2);
    assert.equal((await t.services.retention.prune()).audit, 1);
    assert.deepEqual(await entriesOf(t.services, ws.id), []);
  });

  test('several sweepers pruning at once delete each old entry exactly once, in batches, and keep the new', async () => {
    const { t, clock } = await appWith(30);
    const ws = await t.services.workspaces.createWorkspace({ name: 'Busy Co' }, OPERATOR);
    // 1,200 old entries (more than one batch each), arranged directly: 31 to 40 days old.
    const old = Array.from({ length: 1200 }, (_, i) => ({
      id: `aud_old${String(i).padStart(17, '0')}`,
      workspace_id: ws.id,
      at: clock.now() - (31 + (i % 10)) * DAY,
      seq: (clock.now() - 40 * DAY) * 1000 + i,
      actor: 'cli',
      actor_email: null,
      action: 'limits.changed' as const,
      target: ws.id,
      details: '{}',
      address: null,
    }));
    for (let i = 0; i < old.length; i += 200) {
      await t.store.db
        .insertInto('audit_log')
        .values(old.slice(i, i + 200))
        .execute();
    }
    const sweepers = [
      t.services,
      ...[1, 2].map(() =>
        createServices({
          store: t.store,
          secret: TEST_SECRET,
          clock,
          publicUrl: TEST_PUBLIC_URL,
          auditRetentionDays: 30,
        }),
      ),
    ];
    const results = await Promise.all(sweepers.map((s) => s.retention.prune()));
    assert.equal(
      results.reduce((sum, r) => sum + r.audit, 0),
      1200,
      'each old entry deleted exactly once',
    );
    assert.deepEqual(
      (await entriesOf(t.services, ws.id)).map((e) => e.action),
      ['workspace.created'],
    );
  });

  test('AUDIT_RETENTION_DAYS: a whole number of days from 1 to 36500; anything else is refused at start', () => {
    assert.equal(loadConfig({}).auditRetentionDays, 365);
    assert.equal(loadConfig({ AUDIT_RETENTION_DAYS: '90' }).auditRetentionDays, 90);
    assert.equal(loadConfig({ AUDIT_RETENTION_DAYS: '' }).auditRetentionDays, 365, 'empty is unset');
    for (const bad of ['0', '-1', '1.5', '1e2', '0x10', 'abc', '36501', '99999999999999999999', '\u0661']) {
      assert.throws(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }), ConfigError, bad);
    }
    const { env } = cliSuiteEnv();
    const result = runCli(['workspace', 'list', '--json'], { ...env, AUDIT_RETENTION_DAYS: 'forever' });
    assertCleanFailure(result, /invalid AUDIT_RETENTION_DAYS/);
    assert.equal(result.status, 2);
  });
});
