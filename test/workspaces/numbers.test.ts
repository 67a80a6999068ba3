// Workspace numbers. operator-interface "number add": without --type the type is detected; where it cannot be
// (US/CA) the command fails and says to pass --type; output { id, number, type, country }.
// api-decisions "Numbers, countries, channels": types mobile / landline / local_rate (AU 13/1300) / toll_free,
// detected where the metadata is certain, given by the operator where it is not; a national number takes
// `country`, else the country of the workspace's (first) number. service-spec section 4 (`country` default).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import { AppError } from '../../src/errors.js';
import { client, createTestApp, json, seedWorkspace, type TestApp } from '../helpers/app.js';

function isAppError(code: string, detail?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof AppError, `an AppError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (detail) assert.match(err.message, detail);
    return true;
  };
}

describe('workspace numbers', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const newWorkspace = async (name = 'Acme') =>
    (await t.services.workspaces.createWorkspace({ name }, OPERATOR)).id;
  const add = (workspaceId: string, number: string, type?: string) =>
    t.services.workspaces.addNumber({ workspaceId, number, type }, OPERATOR);

  describe('type detection where the metadata is certain', () => {
    for (const [number, type, country] of [
      ['+61491570156', 'mobile', 'AU'],
      ['+61255501234', 'landline', 'AU'],
      ['+611300555123', 'local_rate', 'AU'],
      ['+61131234', 'local_rate', 'AU'],
      ['+611800555123', 'toll_free', 'AU'],
      ['+64211234567', 'mobile', 'NZ'],
      ['+6493001234', 'landline', 'NZ'],
      ['+64800123456', 'toll_free', 'NZ'],
      ['+447400123456', 'mobile', 'GB'],
      ['+442079460000', 'landline', 'GB'],
      ['+448081570000', 'toll_free', 'GB'],
    ] as const) {
      test(`${number} is detected as ${type} (${country})`, async () => {
        const ws = await newWorkspace();
        const view = await add(ws, number);
        assert.match(view.id, /^num_/);
        assert.deepEqual(
          { ...view, id: undefined },
          { id: undefined, number, type, country, carrier_id: null },
        );
        assert.deepEqual(await t.services.workspaces.listNumbers(ws), [view]);
      });
    }
  });

  describe('US/CA: the type cannot be told from the number', () => {
    for (const [number, country] of [
      ['+12015550123', 'US'],
      ['+14165550123', 'CA'],
    ] as const) {
      test(`${number} (${country}) without a type fails, naming the type field (the CLI shows it as --type)`, async () => {
        const ws = await newWorkspace();
        await assert.rejects(add(ws, number), (err: unknown) => {
          assert.ok(isAppError('invalid_request', /cannot be told from the number/)(err));
          assert.deepEqual(
            (err as AppError).extras.errors?.map((e) => e.field),
            ['type'],
          );
          return true;
        });
        assert.deepEqual(await t.services.workspaces.listNumbers(ws), [], 'nothing was added');
      });

      test(`${number} (${country}) with a type is added with that type`, async () => {
        const ws = await newWorkspace();
        for (const type of ['mobile', 'landline', 'toll_free']) {
          const other = await newWorkspace();
          const view = await add(other, number, type);
          assert.equal(view.type, type);
          assert.equal(view.country, country);
        }
        assert.equal((await add(ws, number, 'mobile')).type, 'mobile');
      });
    }

    test('the error names the `type` field and every allowed type', async () => {
      const ws = await newWorkspace();
      try {
        await add(ws, '+12025550123');
        assert.fail('expected a refusal');
      } catch (err) {
        assert.ok(err instanceof AppError);
        assert.deepEqual(
          err.extras.errors?.map((e) => e.field),
          ['type'],
        );
        for (const type of ['mobile', 'landline', 'local_rate', 'toll_free'])
          assert.match(err.message, new RegExp(type));
      }
    });
  });

  describe('an explicit type', () => {
    test('that contradicts certain metadata is refused', async () => {
      const ws = await newWorkspace();
      for (const [number, wrong] of [
        ['+61491570156', 'landline'],
        ['+61255501234', 'mobile'],
        ['+611300555123', 'toll_free'],
        ['+611800555123', 'mobile'],
        ['+64211234567', 'landline'],
        ['+442079460000', 'mobile'],
      ] as const) {
        await assert.rejects(add(ws, number, wrong), isAppError('invalid_request'), `${number} as ${wrong}`);
      }
      assert.deepEqual(await t.services.workspaces.listNumbers(ws), [], 'nothing was added');
    });

    test('that agrees with the metadata is accepted', async () => {
      const ws = await newWorkspace();
      assert.equal((await add(ws, '+61491570156', 'mobile')).type, 'mobile');
      assert.equal((await add(ws, '+611300555123', 'local_rate')).type, 'local_rate');
    });

    test('outside mobile, landline, local_rate, toll_free is refused', async () => {
      const ws = await newWorkspace();
      for (const type of ['fax', 'MOBILE', '', 'premium']) {
        await assert.rejects(add(ws, '+12015550123', type), isAppError('invalid_request'), type);
      }
    });
  });

  describe('refusals', () => {
    test('a duplicate number in the same workspace is refused, in any format', async () => {
      const ws = await newWorkspace();
      await add(ws, '+61491570156');
      await assert.rejects(add(ws, '+61491570156'), isAppError('conflict'));
      await assert.rejects(add(ws, '+61 491 570 156'), isAppError('conflict'));
      await assert.rejects(add(ws, '+61491570156', 'mobile'), isAppError('conflict'));
      assert.equal((await t.services.workspaces.listNumbers(ws)).length, 1);
    });

    test('the same number may belong to another workspace', async () => {
      const first = await newWorkspace();
      const second = await newWorkspace();
      await add(first, '+61255501234');
      assert.equal((await add(second, '+61255501234')).number, '+61255501234');
    });

    test('a number not in E.164 form is refused', async () => {
      const ws = await newWorkspace();
      for (const number of ['0491570156', '0491 570 156', '61491570156', '(02) 5550 1234']) {
        await assert.rejects(add(ws, number), isAppError('invalid_phone', /E\.164/), number);
      }
    });

    test('an invalid number is refused', async () => {
      const ws = await newWorkspace();
      for (const number of ['+', '+6149157', '+61abc', '+6100000000']) {
        await assert.rejects(add(ws, number), isAppError('invalid_phone'), number);
      }
    });

    test('a number outside AU, US, CA, GB, NZ is refused', async () => {
      const ws = await newWorkspace();
      await assert.rejects(add(ws, '+33612345678'), isAppError('unsupported_country'));
    });

    test('an unknown workspace is refused', async () => {
      await assert.rejects(add('ws_doesnotexist0000000000000', '+61491570156'), isAppError('not_found'));
    });
  });

  describe('the default country of national-format numbers is the workspace’s first number’s country', () => {
    test('a workspace whose first number is NZ reads national numbers as NZ', async () => {
      const ws = await seedWorkspace(t.services, {
        name: 'Kiwi',
        numbers: [{ number: '+64211234567' }, { number: '+61491570156' }],
      });
      const api = client(t.app, ws.key);
      const res = await api.send({ phone: '021 123 0501' });
      assert.equal(res.statusCode, 201);
      assert.equal(json(res).phone, '+64211230501');
      // Checking by a national number uses the same default.
      const check = await api.check({ phone: '021 123 0501', code: '000000' });
      assert.equal(check.statusCode, 200);
      assert.equal(json(check).id, json(res).id);
    });

    test('a workspace whose first number is AU reads national numbers as AU', async () => {
      const ws = await seedWorkspace(t.services, {
        name: 'Aussie',
        numbers: [{ number: '+61255501234' }, { number: '+64211234567' }],
      });
      const res = await client(t.app, ws.key).send({ phone: '0412 370 502' });
      assert.equal(res.statusCode, 201);
      assert.equal(json(res).phone, '+61412370502');
    });

    test('a workspace whose first number is GB reads national numbers as GB', async () => {
      const ws = await seedWorkspace(t.services, { name: 'Brit', numbers: [{ number: '+442079460000' }] });
      const res = await client(t.app, ws.key).send({ phone: '020 7946 0503' });
      assert.equal(res.statusCode, 201);
      assert.equal(json(res).phone, '+442079460503');
    });

    test('an explicit `country` overrides the default; an E.164 number ignores `country`', async () => {
      const ws = await seedWorkspace(t.services, { name: 'Kiwi2', numbers: [{ number: '+64211234567' }] });
      const api = client(t.app, ws.key);
      const au = await api.send({ phone: '0412 370 504', country: 'AU' });
      assert.equal(json(au).phone, '+61412370504');
      const e164 = await api.send({ phone: '+61412370505', country: 'NZ' });
      assert.equal(json(e164).phone, '+61412370505');
    });

    test('a workspace with no numbers cannot read a national number without `country`', async () => {
      const ws = await seedWorkspace(t.services, { name: 'Empty', numbers: [] });
      const res = await client(t.app, ws.key).send({ phone: '0412 370 506' });
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).code, 'invalid_phone');
    });
  });
});
