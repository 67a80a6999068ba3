// A write refused by a foreign key because what it referenced was removed while the request ran (a workspace
// deleted, a number or carrier account removed by another request) is a 409 conflict, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { toAppError } from '../../src/http/problem.js';
import { isRemovedMeanwhile } from '../../src/store/unavailable.js';
import { deleteWorkspaceRows } from '../../src/workspaces/deletion-repository.js';
import { client, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';

const withCode = (code: string) => Object.assign(new Error('insert violates a foreign key'), { code });

describe('a write whose references were removed meanwhile', () => {
  test('both stores’ foreign-key refusals are recognised, and nothing else is', () => {
    assert.equal(isRemovedMeanwhile(withCode('23503')), true);
    assert.equal(isRemovedMeanwhile(withCode('SQLITE_CONSTRAINT_FOREIGNKEY')), true);
    for (const code of ['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT', '23502', '']) {
      assert.equal(isRemovedMeanwhile(withCode(code)), false, code);
    }
    assert.equal(isRemovedMeanwhile({ code: '23503' }), false, 'only errors');
  });

  test('is answered 409 conflict', () => {
    const problem = toAppError(withCode('23503') as never);
    assert.ok(problem instanceof AppError);
    assert.equal(problem.code, 'conflict');
    assert.equal(problem.status, 409);
  });

  describe('a send whose workspace row is gone by the time it writes', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp();
    });
    after(() => t.close());

    test('answers 409 and keeps nothing (the real store refuses the foreign key)', async () => {
      const ws = await seedWorkspace(t.services);
      const api = client(t.app, ws.key);
      // The key was read and its senders found; then, inside the send's transaction, the workspace goes (as a
      // `workspace delete` committing just then would make it): the send's own writes must be refused.
      // A send alone meets the guard in guardSend; one of a turn's batch (PostgreSQL: send-batch.ts) in passAhead.
      const { guardSend, passAhead } = t.services.fraud;
      t.services.fraud.guardSend = async (tx, workspaceId, phone, range, now) => {
        await deleteWorkspaceRows(tx, workspaceId);
        return guardSend(tx, workspaceId, phone, range, now);
      };
      t.services.fraud.passAhead = async (tx, workspaceId, phone, range, now) => {
        await deleteWorkspaceRows(tx, workspaceId);
        return passAhead(tx, workspaceId, phone, range, now);
      };
      try {
        const res = await api.send({ phone: '+61412345678', channel: 'sms' });
        assert.equal(res.statusCode, 409, res.body);
        assert.equal(JSON.parse(res.body).code, 'conflict');
      } finally {
        Object.assign(t.services.fraud, { guardSend, passAhead });
      }
      // The transaction rolled back whole: the workspace is still there, and no verification was kept.
      const kept = await t.store.db
        .selectFrom('verifications')
        .select('id')
        .where('workspace_id', '=', ws.workspaceId)
        .execute();
      assert.deepEqual(kept, []);
      const sent = await api.send({ phone: '+61412345678', channel: 'sms' });
      assert.equal(sent.statusCode, 201, sent.body);
    });
  });
});
