// A workspace's test numbers (src/workspaces/test-numbers.ts): E.164 numbers parsed like any number (junk, NUL,
// odd Unicode and huge values refused with a 4xx naming the field), fixed codes of 4 to 8 ASCII digits, at most
// MAX_TEST_NUMBERS a workspace even when additions race, one per number, scoped to their workspace, each change
// in the audit trail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AppError } from '../../src/errors.js';
import { MAX_TEST_NUMBERS } from '../../src/workspaces/test-numbers.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';

/** The call fails with this AppError code (a 4xx, never a 500). */
async function refused(call: Promise<unknown>, code: string, label = ''): Promise<AppError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof AppError, `${label}: ${String(err)}`);
    assert.equal(err.code, code, `${label}: ${err.message}`);
    assert.ok(err.status >= 400 && err.status < 500);
    return err;
  }
  assert.fail(`${label}: the call succeeded`);
}

describe('test numbers', () => {
  let t: TestApp;
  let workspaceId: string;
  let otherId: string;

  before(async () => {
    t = await createTestApp();
    workspaceId = (await seedWorkspace(t.services)).workspaceId;
    otherId = (await seedWorkspace(t.services, { name: 'Initech' })).workspaceId;
  });
  after(() => t.close());

  const add = (phone: string, code = '123456', ws = workspaceId) =>
    t.services.testNumbers.addTestNumber({ workspaceId: ws, phone, code }, OPERATOR);

  test('added in E.164 (spaces allowed), listed with their code, removed; the trail records both', async () => {
    const added = await add('+61 412 342 001', '0042');
    assert.deepEqual({ phone: added.phone, code: added.code }, { phone: '+61412342001', code: '0042' });
    const listed = await t.services.testNumbers.listTestNumbers(workspaceId);
    assert.deepEqual(
      listed.map((n) => [n.phone, n.code]),
      [['+61412342001', '0042']],
    );
    const removed = await t.services.testNumbers.removeTestNumber(
      { workspaceId, phone: '+61412342001' },
      OPERATOR,
    );
    assert.equal(removed.phone, '+61412342001');
    assert.deepEqual(await t.services.testNumbers.listTestNumbers(workspaceId), []);
    const actions = await t.store.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('workspace_id', '=', workspaceId)
      .where('action', 'in', ['test_number.added', 'test_number.removed'])
      .orderBy('at')
      .execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      ['test_number.added', 'test_number.removed'],
    );
    assert.equal(
      actions.some((a) => a.details.includes('0042')),
      false,
      'the code is not in the trail',
    );
  });

  test('junk numbers are refused: not E.164, not a number, NUL, odd Unicode, huge, unsupported country', async () => {
    for (const phone of [
      '',
      '0412 342 002',
      'not a number',
      '+6141234\u00002003',
      '+61412342\u202e005',
      `+61${'4'.repeat(100)}`,
      '+33612345678',
      '+61',
    ]) {
      const code = await codeOf(add(phone));
      assert.ok(
        code !== undefined && ['invalid_phone', 'invalid_request', 'unsupported_country'].includes(code),
        `${JSON.stringify(phone.slice(0, 20))}: ${code}`,
      );
    }
    assert.deepEqual(await t.services.testNumbers.listTestNumbers(workspaceId), []);
  });

  test('full-width digits spell the number they show, as in a send: stored as ASCII E.164', async () => {
    const added = await add('+６１４１２３４２００４', '1234');
    assert.equal(added.phone, '+61412342004');
    await t.services.testNumbers.removeTestNumber({ workspaceId, phone: added.phone }, OPERATOR);
  });

  test('codes are 4 to 8 ASCII digits: anything else is 400 naming code', async () => {
    for (const code of [
      '',
      '123',
      '123456789',
      '12a456',
      '١٢٣٤٥٦',
      '１２３４',
      '1234\u0000',
      ' 1234',
      '9'.repeat(10_000),
    ]) {
      const err = await refused(
        add('+61412342010', code),
        'invalid_request',
        JSON.stringify(code.slice(0, 12)),
      );
      assert.deepEqual(
        err.extras.errors?.map((e) => e.field),
        ['code'],
      );
    }
    for (const code of ['0000', '12345678']) {
      await add(`+6141234201${code.length}`, code);
    }
  });

  test('one per number: adding it again is 409, even with another code', async () => {
    await add('+61412342020', '1111');
    await refused(add('+61412342020', '2222'), 'conflict');
    await refused(add('+61 412 342 020', '1111'), 'conflict');
  });

  test("scoped to the workspace: another workspace's test number is not found, and may be the same number", async () => {
    await add('+61412342030', '3030');
    await refused(
      t.services.testNumbers.removeTestNumber({ workspaceId: otherId, phone: '+61412342030' }, OPERATOR),
      'not_found',
    );
    await add('+61412342030', '4040', otherId);
    const mine = await t.services.testNumbers.listTestNumbers(workspaceId);
    assert.equal(mine.find((n) => n.phone === '+61412342030')?.code, '3030');
    await refused(t.services.testNumbers.listTestNumbers('ws_nope'), 'not_found');
    await refused(add('+61412342031', '1234', 'ws_nope'), 'not_found');
  });

  test(`at most ${MAX_TEST_NUMBERS} a workspace, even when additions race past the cap`, async () => {
    const ws = (await seedWorkspace(t.services, { name: 'Full' })).workspaceId;
    for (let i = 0; i < MAX_TEST_NUMBERS - 3; i++) {
      await add(`+614123430${String(i).padStart(2, '0')}`, '1234', ws);
    }
    // Ten at once for the last three places.
    const racing = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => add(`+614123431${String(i).padStart(2, '0')}`, '1234', ws)),
    );
    assert.equal(racing.filter((r) => r.status === 'fulfilled').length, 3);
    for (const r of racing) {
      if (r.status === 'rejected') assert.equal((r.reason as AppError).code, 'conflict');
    }
    assert.equal((await t.services.testNumbers.listTestNumbers(ws)).length, MAX_TEST_NUMBERS);
  });

  test('deleting a workspace deletes its test numbers', async () => {
    const ws = (await seedWorkspace(t.services, { name: 'Gone' })).workspaceId;
    await add('+61412342040', '1234', ws);
    await t.services.workspaces.deleteWorkspace(ws, OPERATOR);
    const left = await t.store.db
      .selectFrom('test_numbers')
      .select('phone')
      .where('workspace_id', '=', ws)
      .execute();
    assert.deepEqual(left, []);
  });
});

/** The code an AppError carries, for the cases where several refusals are right. */
async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (err) {
    return err instanceof AppError ? err.code : undefined;
  }
  return undefined;
}
