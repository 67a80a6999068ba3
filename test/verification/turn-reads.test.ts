// The reads that concurrent requests share (src/store/turn-batch.ts `readByKey`: on PostgreSQL one statement for
// the requests of a turn, on SQLite one each): a verification by id (get, check, cancel) and a workspace's senders
// (send). In one burst, four keys (two workspaces, each with a live and a test key) read their own verifications,
// each other's and unknown ids, several times each: every key gets its own verification and, for every other id,
// exactly the 404 of an unknown id. Concurrent checks of many verifications of two workspaces, correct and wrong
// mixed, each judge their own. Concurrent sends of two workspaces each go from their own workspace's number, in
// its country. On PostgreSQL a burst of reads is a few statements, not one a read; and with a pool of one
// connection, the shared reads and the transactions take turns on it, and a burst of every kind all answers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATOR } from '../../src/audit/actor.js';
import type { Check, Problem, Verification } from '../helpers/api-types.js';
import {
  type Client,
  client,
  codeFor,
  json,
  seedWorkspace,
  statementsOf,
  type TestApp,
} from '../helpers/app.js';
import { TEST_STORE } from '../helpers/database.js';
import { assertEveryStatus, clockedApp, sendOk, wrongCode } from '../helpers/verification.js';

interface Reader {
  name: string;
  api: Client;
  /** The verifications this key made: the only ones it may see. */
  own: Verification[];
}

async function workspaceKeys(
  t: TestApp,
  name: string,
  number: string,
  phones: { live: string; test: string },
) {
  const seeded = await seedWorkspace(t.services, { name, numbers: [{ number }] });
  const testKey = await t.services.keys.createKey(
    { workspaceId: seeded.workspaceId, name: 'test', mode: 'test' },
    OPERATOR,
  );
  const live: Reader = { name: `${name} live`, api: client(t.app, seeded.key), own: [] };
  const test: Reader = { name: `${name} test`, api: client(t.app, testKey.key), own: [] };
  live.own.push(await sendOk(live.api, { phone: phones.live }));
  test.own.push(await sendOk(test.api, { phone: phones.test }));
  return [live, test];
}

const ACME_NUMBER = '+61491570156';
// Globex sends from New Zealand: a national number given to its key is read as a New Zealand number.
const GLOBEX_NUMBER = '+64211234567';

describe('reads shared by concurrent requests', () => {
  let t: TestApp;
  let readers: Reader[];

  before(async () => {
    ({ t } = await clockedApp());
    readers = [
      ...(await workspaceKeys(t, 'Acme', ACME_NUMBER, { live: '+61412345001', test: '+61412345002' })),
      ...(await workspaceKeys(t, 'Globex', GLOBEX_NUMBER, { live: '+61412345003', test: '+61412345004' })),
    ];
  });
  after(() => t.close());

  test("a burst of gets by four keys: each gets its own verification, and every other key's id is a 404 like an unknown id", async () => {
    const everyId = readers.flatMap((r) => r.own.map((v) => v.id));
    const unknownId = `ver_${'x'.repeat(24)}`;
    const asks = readers.flatMap((reader) =>
      [...everyId, unknownId].flatMap((id) => Array.from({ length: 3 }, () => ({ reader, id }))),
    );
    const replies = await Promise.all(asks.map(({ reader, id }) => reader.api.get(id)));
    for (const [i, { reader, id }] of asks.entries()) {
      const reply = replies[i];
      assert.ok(reply);
      const mine = reader.own.find((v) => v.id === id);
      if (mine) {
        assert.equal(reply.statusCode, 200, `${reader.name} reading its own ${id}: ${reply.body}`);
        assert.deepEqual(json<Verification>(reply), mine);
      } else {
        assert.equal(reply.statusCode, 404, `${reader.name} reading ${id}: ${reply.body}`);
        const problem = json<Problem>(reply);
        assert.equal(problem.code, 'not_found');
        assert.equal(problem.detail, `No verification ${id}.`);
      }
    }
  });

  test('concurrent checks of 24 verifications of two workspaces, correct and wrong codes mixed: each judges its own', async () => {
    const [acme, , globex] = readers as [Reader, Reader, Reader, Reader];
    const sends = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const reader = i % 2 === 0 ? acme : globex;
        const phone = `+614123461${String(i).padStart(2, '0')}`;
        const sent = await sendOk(reader.api, { phone });
        return { reader, sent, code: await codeFor(t.services, phone), correct: i % 3 !== 0 };
      }),
    );
    const replies = await Promise.all(
      sends.map(({ reader, sent, code, correct }) =>
        reader.api.check({ verification_id: sent.id, code: correct ? code : wrongCode(code) }),
      ),
    );
    for (const [i, { sent, correct }] of sends.entries()) {
      const reply = replies[i];
      assert.ok(reply);
      assert.equal(reply.statusCode, 200, reply.body);
      const check = json<Check>(reply);
      assert.equal(check.id, sent.id);
      assert.equal(check.verified, correct);
      assert.equal(check.status, correct ? 'verified' : 'pending');
      // A wrong code says the attempts made; this was each verification's first.
      if (!correct) assert.equal(check.attempts, 1);
    }
    // And a check by another workspace's key is a 404: the batch never hands one workspace's row to another.
    const { sent, code } =
      sends.find((s) => s.reader === acme && !s.correct) ?? assert.fail('no wrong check');
    const stranger = await globex.api.check({ verification_id: sent.id, code });
    assert.equal(stranger.statusCode, 404, stranger.body);
  });

  test("concurrent sends of two workspaces: each goes from its own workspace's number, national numbers read in its country", async () => {
    const [acme, , globex] = readers as [Reader, Reader, Reader, Reader];
    const asks = Array.from({ length: 24 }, (_, i) => ({
      reader: i % 2 === 0 ? acme : globex,
      phone: `+614123462${String(i).padStart(2, '0')}`,
    }));
    const sent = await Promise.all(asks.map(({ reader, phone }) => sendOk(reader.api, { phone })));
    for (const [i, { reader }] of asks.entries()) {
      assert.equal(sent[i]?.delivery.from_number, reader === acme ? ACME_NUMBER : GLOBEX_NUMBER);
    }
    // The first number gives the default country: the same national digits are Australian to Acme, a New Zealand
    // number to Globex, sent at once.
    const national = await Promise.all(
      [acme, globex, acme, globex].map((reader) => reader.api.send({ phone: '021 345 678' })),
    );
    assert.deepEqual(
      national.map((r) => r.statusCode),
      [400, 201, 400, 201],
      national.map((r) => r.body).join('\n'),
    );
    for (const reply of national.filter((r) => r.statusCode === 201)) {
      assert.equal(json<Verification>(reply).phone, '+6421345678');
    }
  });

  test('60 concurrent gets: on PostgreSQL a few statements for their reads, on SQLite one statement each', async () => {
    const [acme] = readers as [Reader];
    const [verification] = acme.own as [Verification];
    // The key's first use recorded last_used_at already; admission is batched too, so the burst's statements are
    // its admissions' few and its reads'.
    const statements = await statementsOf(t, async () => {
      const replies = await Promise.all(Array.from({ length: 60 }, () => acme.api.get(verification.id)));
      assertEveryStatus(replies, 200);
    });
    if (TEST_STORE === 'postgres') assert.ok(statements <= 12, `statements for 60 gets: ${statements}`);
    else assert.ok(statements >= 60, `statements for 60 gets: ${statements}`);
  });
});

describe('reads shared by concurrent requests, on a pool of one PostgreSQL connection', () => {
  let t: TestApp;
  let api: Client;

  before(async () => {
    ({ t } = await clockedApp({ poolMax: 1 }));
    api = client(t.app, (await seedWorkspace(t.services, { name: 'Initech' })).key);
  });
  after(() => t.close());

  test('40 concurrent sends, then a check and a get of each at once: every one answers', async () => {
    const phones = Array.from({ length: 40 }, (_, i) => `+614123470${String(i).padStart(2, '0')}`);
    const sent = await Promise.all(phones.map((phone) => sendOk(api, { phone })));
    const codes = await Promise.all(phones.map((phone) => codeFor(t.services, phone)));
    const replies = await Promise.all(
      sent.flatMap((v, i) => [
        api.check({
          verification_id: v.id,
          code: i % 2 === 0 ? (codes[i] ?? '') : wrongCode(codes[i] ?? ''),
        }),
        api.get(v.id),
      ]),
    );
    assertEveryStatus(replies, 200);
    const checks = replies.filter((_, i) => i % 2 === 0).map((r) => json<Check>(r));
    assert.deepEqual(
      checks.map((c) => c.verified),
      sent.map((_, i) => i % 2 === 0),
    );
  });
});
