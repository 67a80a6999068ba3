// A hand-over that is a write to this database (the development outbox, the test outbox) is made in the send's own
// transaction (src/delivery/inline-hand-over.ts, docs/architecture.md "Delivery"): the verification, its outbox
// message and its timeline commit together or not at all, no delivery job is written, and the answer is the row
// as inserted. A carrier's hand-over still goes through a job (test/delivery/durable-delivery.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { listOutbox } from '../../src/delivery/outbox.js';
import { dialectOf } from '../../src/store/prepared.js';
import type { Delivery } from '../helpers/api-types.js';
import { type Client, json, type TestApp } from '../helpers/app.js';
import { acmeApp } from '../helpers/verification.js';

describe('a local hand-over commits with its send', () => {
  let t: TestApp;
  let api: Client;

  before(async () => {
    ({ t, api } = await acmeApp());
  });
  after(() => t.close());

  const jobsOf = (id: string) =>
    t.store.db
      .selectFrom('delivery_jobs')
      .select('verification_id')
      .where('verification_id', '=', id)
      .execute();
  const kinds = async (workspaceId: string, id: string) =>
    (await t.services.verifications.inspect(workspaceId, id)).events.map((e) => e.kind);

  test('handed over: no delivery job, one outbox message, the row settled as inserted, created then handed_over', async () => {
    const phone = '+61412380001';
    const res = await api.send({ phone, channel: 'sms' });
    assert.equal(res.statusCode, 201, res.body);
    const v = json(res);
    const delivery = v.delivery as Delivery;
    assert.equal(delivery.ok, true);
    assert.deepEqual(await jobsOf(v.id as string), [], 'no job: nothing is left to hand over');
    const messages = await listOutbox(t.store.db, { to: phone, limit: 10 });
    assert.equal(messages.length, 1);
    assert.equal(delivery.provider_id, messages[0]?.id);
    const stored = await t.store.db
      .selectFrom('verifications')
      .select(['workspace_id', 'delivery_ok', 'delivery_provider', 'provider_id', 'status'])
      .where('id', '=', v.id as string)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...stored, workspace_id: undefined },
      {
        workspace_id: undefined,
        delivery_ok: 1,
        delivery_provider: 'development',
        provider_id: messages[0]?.id,
        status: 'pending',
      },
    );
    assert.deepEqual(await kinds(stored.workspace_id, v.id as string), ['created', 'handed_over']);
  });

  test('rejected (…0999): inserted undelivered, no job, nothing in the outbox, created then rejected', async () => {
    const phone = '+61412380999';
    const res = await api.send({ phone, channel: 'sms' });
    assert.equal(res.statusCode, 201, res.body);
    const v = json(res);
    assert.equal(v.status, 'undelivered');
    assert.equal((v.delivery as Delivery).error_code, 'destination_rejected');
    assert.deepEqual(await jobsOf(v.id as string), []);
    assert.deepEqual(await listOutbox(t.store.db, { to: phone, limit: 10 }), []);
    const row = await t.store.db
      .selectFrom('verifications')
      .select(['workspace_id', 'status'])
      .where('id', '=', v.id as string)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'undelivered');
    assert.deepEqual(await kinds(row.workspace_id, v.id as string), ['created', 'rejected']);
  });

  test('an outbox write that fails fails the whole send: no verification, no job, no message; the next send works', async () => {
    const db = t.store.db;
    const phone = '+61412380002';
    if (dialectOf(db) === 'sqlite') {
      await sql`CREATE TRIGGER outbox_down BEFORE INSERT ON outbox_messages BEGIN SELECT RAISE(ABORT, 'outbox down'); END`.execute(
        db,
      );
    } else {
      await sql`CREATE FUNCTION outbox_down() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox down'; END $$`.execute(
        db,
      );
      await sql`CREATE TRIGGER outbox_down BEFORE INSERT ON outbox_messages FOR EACH ROW EXECUTE FUNCTION outbox_down()`.execute(
        db,
      );
    }
    const before = await db.selectFrom('delivery_jobs').select('verification_id').execute();
    try {
      const res = await api.send({ phone, channel: 'sms' });
      assert.equal(res.statusCode, 500, res.body);
      assert.equal(json(res).code, 'internal_error');
      assert.deepEqual(
        await db.selectFrom('verifications').select('id').where('phone', '=', phone).execute(),
        [],
        'the verification rolled back with its hand-over',
      );
      assert.deepEqual(await db.selectFrom('delivery_jobs').select('verification_id').execute(), before);
      assert.deepEqual(await listOutbox(db, { to: phone, limit: 10 }), []);
    } finally {
      await sql`DROP TRIGGER outbox_down${sql.raw(dialectOf(db) === 'sqlite' ? '' : ' ON outbox_messages')}`.execute(
        db,
      );
    }
    const again = await api.send({ phone, channel: 'sms' });
    assert.equal(again.statusCode, 201, again.body);
    assert.equal((json(again).delivery as Delivery).ok, true);
  });
});
