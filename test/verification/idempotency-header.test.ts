// The Idempotency-Key header under attack (docs/api.md, "Idempotent sends"): 1 to 255 printable ASCII characters,
// spaces only between them, sent once. Anything else is 400 invalid_request naming the header, before the body is
// read, and nothing is sent or kept; what Node's own parser refuses (a NUL, a header block over 16 KiB) is a
// problem too. Over app.inject and over a real socket.
import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Problem } from '../helpers/api-types.js';
import { createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';
import { assertProblem } from '../helpers/verification.js';

let phoneSeq = 0;
function freshPhone(): string {
  phoneSeq += 1;
  return `+6141238${String(phoneSeq).padStart(4, '0')}`;
}

describe('Idempotency-Key header values', () => {
  let t: TestApp;
  let key = '';

  before(async () => {
    t = await createTestApp();
    ({ key } = await seedWorkspace(t.services));
  });
  after(() => t.close());

  const send = (idempotencyKey: string | string[], body: unknown = { phone: freshPhone() }) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/otp/send',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const count = async (table: 'verifications' | 'idempotency_keys') =>
    (await t.store.db.selectFrom(table).select('workspace_id').execute()).length;

  const refused: [string, string | string[], RegExp][] = [
    ['empty', '', /must not be empty/],
    ['256 characters', 'k'.repeat(256), /at most 255 characters/],
    ['100 000 characters', 'k'.repeat(100_000), /at most 255 characters/],
    ['a leading space', ' key', /printable ASCII/],
    ['a trailing space', 'key ', /printable ASCII/],
    ['only spaces', '   ', /printable ASCII/],
    ['a NUL', 'key\u0000x', /printable ASCII/],
    ['a tab', 'key\tx', /printable ASCII/],
    ['a line break', 'key\nx', /printable ASCII/],
    ['a control character (0x01)', '\u0001key', /printable ASCII/],
    ['DEL (0x7F)', 'key\u007f', /printable ASCII/],
    ['an accented letter', 'clé', /printable ASCII/],
    ['CJK', '鍵', /printable ASCII/],
    ['an emoji', 'key-🔑', /printable ASCII/],
    ['a zero-width space', 'ke\u200by', /printable ASCII/],
    ['a right-to-left override', 'key\u202e', /printable ASCII/],
    ['a non-breaking space inside', 'a\u00a0b', /printable ASCII/],
    ['two headers, the same key', ['dup', 'dup'], /sent once/],
    ['two headers, different keys', ['one', 'two'], /sent once/],
  ];
  for (const [name, value, detail] of refused) {
    test(`${name}: 400 invalid_request naming Idempotency-Key; nothing sent or kept`, async () => {
      const before = [await count('verifications'), await count('idempotency_keys')];
      const problem = assertProblem(await send(value), 400, 'invalid_request', 'Idempotency-Key', name);
      assert.match(problem.detail, detail);
      assert.deepEqual([await count('verifications'), await count('idempotency_keys')], before);
    });
  }

  test('the header is checked before the body: a bad key with a bad body names the key', async () => {
    assertProblem(await send('', '{not json'), 400, 'invalid_request', 'Idempotency-Key');
    assertProblem(await send('bad\u0001', { code_length: 99 }), 400, 'invalid_request', 'Idempotency-Key');
  });

  const accepted: [string, string][] = [
    ['one character', '!'],
    ['255 characters', 'k'.repeat(255)],
    ['a UUID', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['spaces between characters', 'order 42 / attempt 1'],
    ["quotes (the draft's sf-string form is a key like any other)", '"8e03978e"'],
    [
      'every printable ASCII character',
      Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))
        .join('')
        .trim(),
    ],
    ['percent-encoding, taken literally (%00 is three characters, never a NUL)', '%00'],
  ];
  for (const [name, value] of accepted) {
    test(`${name}: accepted and kept as written`, async () => {
      const res = await send(value);
      assert.equal(res.statusCode, 201, res.body);
      const row = await t.store.db
        .selectFrom('idempotency_keys')
        .select(['key', 'state'])
        .where('key', '=', value)
        .executeTakeFirst();
      assert.deepEqual(row, { key: value, state: 'done' });
    });
  }

  test('keys are case-sensitive: ABC and abc are two keys', async () => {
    const body = { phone: freshPhone() };
    const upper = await send('CaseKey', body);
    const lower = await send('casekey', body);
    assert.equal(upper.statusCode, 201);
    assert.equal(lower.statusCode, 201);
    assert.equal(lower.headers['idempotent-replayed'], undefined);
  });

  describe('over a real socket', () => {
    let port = 0;
    before(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    });
    after(() => t.app.server.close());

    /** One request as raw bytes; resolves with everything the server answered before it closed. */
    function raw(
      idempotencyHeaders: Buffer[],
      body = JSON.stringify({ phone: freshPhone() }),
    ): Promise<string> {
      const head = [
        'POST /v1/otp/send HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ].join('\r\n');
      const lines = idempotencyHeaders.map((v) => Buffer.concat([Buffer.from('\r\nIdempotency-Key: '), v]));
      const request = Buffer.concat([Buffer.from(head), ...lines, Buffer.from(`\r\n\r\n${body}`)]);
      return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let answer = '';
        socket.on('data', (d) => {
          answer += d;
        });
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    }
    const problemOf = (answer: string): Problem => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

    for (const [name, bytes] of [
      ['a NUL', Buffer.from('key\u0000x', 'latin1')],
      ['a control character (0x01)', Buffer.from('key\u0001x', 'latin1')],
      ['DEL (0x7F)', Buffer.from('key\u007fx', 'latin1')],
    ] as const) {
      test(`${name}: Node's parser refuses it, answered as a 400 problem`, async () => {
        const before = await count('verifications');
        const answer = await raw([bytes]);
        assert.match(answer, /^HTTP\/1\.1 400 /);
        assert.match(answer, /\r\nContent-Type: application\/problem\+json(; charset=utf-8)?\r\n/i);
        const problem = problemOf(answer);
        assert.equal(problem.code, 'invalid_request');
        assert.equal(problem.status, 400);
        assert.match(problem.request_id, /^req_/);
        assert.match(answer, new RegExp(`\\r\\nX-Request-Id: ${problem.request_id}\\r\\n`, 'i'));
        assert.equal(await count('verifications'), before);
      });
    }

    test('UTF-8 bytes (non-ASCII): 400 naming Idempotency-Key', async () => {
      const answer = await raw([Buffer.from('clé-🔑', 'utf8')]);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.deepEqual(problemOf(answer).errors, [
        {
          field: 'Idempotency-Key',
          message: 'must be printable ASCII characters (spaces only between them)',
        },
      ]);
    });

    test('a 20 KiB key: the header block is over 16 KiB, answered 431 headers_too_large as a problem', async () => {
      const answer = await raw([Buffer.from('k'.repeat(20 * 1024))]);
      assert.match(answer, /^HTTP\/1\.1 431 /);
      assert.equal(problemOf(answer).code, 'headers_too_large');
    });

    test('two Idempotency-Key headers (Node joins them with a comma): 400, sent once', async () => {
      const answer = await raw([Buffer.from('one'), Buffer.from('two')]);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(problemOf(answer).detail, /sent once/);
    });

    test('spaces around the value are not part of it (HTTP strips them): the key is what is between', async () => {
      const body = JSON.stringify({ phone: freshPhone() });
      const first = await raw([Buffer.from('   padded key   ')], body);
      assert.match(first, /^HTTP\/1\.1 201 /);
      const again = await raw([Buffer.from('padded key')], body);
      assert.match(again, /^HTTP\/1\.1 201 /);
      assert.match(again, /\r\nidempotent-replayed: true\r\n/i);
    });
  });
});
