// The conversion signal's judgement reads through the store's reader and writes its blocks through the serving
// connection. On SQLite the reader is a thread of its own: the two reads (a day of finished codes, ranked per range
// and per country) took about two seconds with 225,000 codes in the last day, and on the serving connection every
// API request waited for them, once a minute (docs/benchmarks.md, "The latest long run").
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Kysely, KyselyPlugin, RootOperationNode } from 'kysely';
import { OPERATOR } from '../../src/audit/actor.js';
import { createFraudGuard } from '../../src/fraud/guard.js';
import type { Database } from '../../src/store/tables.js';
import { client, seedWorkspace, type TestApp } from '../helpers/app.js';
import { clockedApp } from '../helpers/verification.js';

/** `db` with every statement recorded in `seen`, as its operation tree in JSON (a plugin: the statement runs as is). */
function recording(db: Kysely<Database>, seen: string[]): Kysely<Database> {
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      seen.push(JSON.stringify(node));
      return node as RootOperationNode;
    },
    transformResult: async ({ result }) => result,
  };
  return db.withPlugin(plugin);
}

describe('pumping guard: the conversion signal reads on the reader', () => {
  let t: TestApp;
  after(async () => {
    await t?.close();
  });

  test('its reads go to the reader, none to the serving connection; the block is written through the serving one', async () => {
    const { t: app, clock } = await clockedApp();
    t = app;
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    // Judged on 20 finished codes per country, blocked under 10% verified; the range signal off.
    await t.services.fraud.setSettings(
      ws.workspaceId,
      { country_conversion_sends: 20, country_conversion_percent: 10, conversion_percent: 0 },
      OPERATOR,
    );
    const api = client(t.app, ws.key);
    for (let i = 0; i < 20; i++) {
      const res = await api.send({ phone: `+6141${String(3000 + i).padStart(4, '0')}000`, channel: 'sms' });
      assert.equal(res.statusCode, 201, res.body);
      clock.advance(1000);
    }
    clock.advance(301_000);
    await t.services.verifications.expireDue();

    const onReader: string[] = [];
    const onServing: string[] = [];
    const guard = createFraudGuard({
      db: recording(t.store.db, onServing),
      reader: recording(t.store.reader, onReader),
      clock,
      retentionDays: 30,
      maxCodeLifetimeMs: 900_000,
    });
    assert.deepEqual(await guard.judgeConversion(), [{ workspaceId: ws.workspaceId, country: 'AU' }]);

    const ranks = (seen: string[]) => seen.filter((s) => s.includes('ROW_NUMBER'));
    assert.equal(ranks(onReader).length, 2, 'one read per range and one per country, on the reader');
    assert.deepEqual(ranks(onServing), [], 'no judgement read on the serving connection');
    assert.ok(
      onServing.some((s) => s.includes('fraud_blocks') && s.includes('InsertQueryNode')),
      'the block is written through the serving connection',
    );
    assert.deepEqual(
      onReader.filter((s) => s.includes('InsertQueryNode') || s.includes('UpdateQueryNode')),
      [],
      'nothing is written through the reader',
    );
  });
});
