// api-decisions "Verification behaviour": "Supersede is atomic" and "Attempt budget is atomic", and the send limit
// (api-decisions "Limits": 5 per number per 10 minutes; limits hold across every server process sharing a
// database) under concurrent load. Requests go over real HTTP with fetch, fired together with Promise.all.
//
// Why several processes: with the embedded SQLite store every query is synchronous, so inside one Node process a
// request handler runs to completion without yielding to another request and nothing can interleave. The
// requests are therefore spread round-robin over the in-process app (t.app.listen) and WORKERS child
// processes serving the same SQLite file, where read-then-write races are real.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { codeFor, createTestApp, seedWorkspace, type TestApp } from '../helpers/app.js';

const WORKERS = 3;

interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A child process serving createTestApp({ dir }) over HTTP; resolves with its base URL. */
async function startWorker(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const helper = pathToFileURL(join(import.meta.dirname, '..', 'helpers', 'app.ts')).href;
  const code = `
    const { createTestApp } = await import(${JSON.stringify(helper)});
    const t = await createTestApp({ dir: ${JSON.stringify(dir)} });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    process.on('SIGTERM', () => { t.close().finally(() => process.exit(0)); });
    console.log(JSON.stringify({ port: t.app.server.address().port }));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const line = await Promise.race([
    once(lines, 'line').then(([l]) => String(l)),
    once(child, 'exit').then(([status]) => {
      throw new Error(`worker exited with ${status}: ${stderr}`);
    }),
  ]);
  const { port } = JSON.parse(line) as { port: number };
  return { url: `http://127.0.0.1:${port}`, child };
}

describe('concurrency invariants (api-decisions: supersede and attempt budget are atomic)', () => {
  let t: TestApp;
  let key: string;
  let workspaceId: string;
  const bases: string[] = [];
  const workers: ChildProcess[] = [];
  let next = 0;

  before(async () => {
    t = await createTestApp();
    const ws = await seedWorkspace(t.services, { name: 'Acme' });
    key = ws.key;
    workspaceId = ws.workspaceId;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    bases.push(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
    const started = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(t.dir)));
    for (const w of started) {
      bases.push(w.url);
      workers.push(w.child);
    }
  });
  after(async () => {
    await Promise.all(
      workers.map(async (child) => {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        await once(child, 'exit');
      }),
    );
    await t.close();
  });

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const base = bases[next++ % bases.length];
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
  }
  const send = (body: unknown) => call('POST', '/v1/otp/send', body);
  const check = (body: unknown) => call('POST', '/v1/otp/check', body);

  /** A code of the same length that is certainly not `code`. */
  const wrongCode = (code: string, i: number) => {
    let candidate = String(i % 10 ** code.length).padStart(code.length, '0');
    if (candidate === code) candidate = String((i + 1) % 10 ** code.length).padStart(code.length, '0');
    return candidate;
  };

  async function rowsFor(phone: string) {
    return t.store.db
      .selectFrom('verifications')
      .select(['id', 'status', 'attempts', 'max_attempts', 'verified_at'])
      .where('workspace_id', '=', workspaceId)
      .where('phone', '=', phone)
      .execute();
  }

  // Races are probabilistic: each scenario runs for several rounds on fresh verifications and numbers.
  const ROUNDS = 5;
  let phoneSeq = 0;
  const freshPhone = () => `+61412300${String(++phoneSeq).padStart(3, '0')}`;

  test('attempt budget is atomic: 40 concurrent wrong checks on max_attempts=5 spend exactly 5, fail it, and a correct code afterwards is refused', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const phone = freshPhone();
      const sent = await send({ phone, max_attempts: 5 });
      assert.equal(sent.status, 201);
      const id = String(sent.body.id);
      const code = await codeFor(t.services, phone);

      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) => check({ verification_id: id, code: wrongCode(code, i) })),
      );

      for (const r of replies) {
        assert.equal(r.status, 200, 'a wrong code is never an error');
        assert.equal(r.body.verified, false);
        assert.ok(Number(r.body.attempts) <= 5, `attempts ${r.body.attempts} exceeds max_attempts`);
      }
      // Each of the first four wrong attempts is reported once, as pending, with its own count.
      const pending = replies.filter((r) => r.body.status === 'pending');
      assert.deepEqual(pending.map((r) => r.body.attempts).sort(), [1, 2, 3, 4]);
      assert.deepEqual(pending.map((r) => r.body.attempts_remaining).sort(), [1, 2, 3, 4]);
      // The fifth wrong attempt fails it. The wire cannot tell that reply from the checks that found it already
      // failed (api-decisions gives both the same body), so: every other reply is exactly that failed body.
      const failed = replies.filter((r) => r.body.status === 'failed');
      assert.equal(failed.length, 36);
      for (const r of failed) {
        assert.deepEqual(r.body, {
          id,
          status: 'failed',
          verified: false,
          attempts: 5,
          attempts_remaining: 0,
        });
      }

      const [row] = await rowsFor(phone);
      assert.equal(row?.status, 'failed');
      assert.equal(row?.attempts, 5, 'exactly max_attempts attempts were spent');

      // Once the budget is spent, not even the correct code is accepted, and nothing more is spent.
      const late = await check({ verification_id: id, code });
      assert.equal(late.status, 200);
      assert.deepEqual(late.body, {
        id,
        status: 'failed',
        verified: false,
        attempts: 5,
        attempts_remaining: 0,
      });
      const read = await call('GET', `/v1/otp/${id}`);
      assert.equal(read.body.status, 'failed');
      assert.equal(read.body.attempts, 5);
      assert.equal(read.body.verified_at, null);
    }
  });

  test('attempt budget is atomic: concurrent correct and wrong checks never exceed max_attempts; a success is stable', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const phone = freshPhone();
      const sent = await send({ phone, max_attempts: 5 });
      const id = String(sent.body.id);
      const code = await codeFor(t.services, phone);

      // Four correct codes among 36 wrong ones, interleaved.
      const bodies = Array.from({ length: 40 }, (_, i) => ({
        verification_id: id,
        code: i % 10 === round % 10 ? code : wrongCode(code, i),
      }));
      const replies = await Promise.all(bodies.map((b) => check(b)));

      const [row] = await rowsFor(phone);
      assert.ok(row);
      assert.ok(
        row.attempts <= row.max_attempts,
        `attempts ${row.attempts} > max_attempts ${row.max_attempts}`,
      );
      for (const r of replies) {
        assert.equal(r.status, 200);
        if (r.body.attempts !== undefined) assert.ok(Number(r.body.attempts) <= 5);
      }
      assert.ok(row.status === 'verified' || row.status === 'failed', `final status ${row.status}`);

      const successes = replies.filter((r) => r.body.verified === true);
      if (row.status === 'verified') {
        assert.ok(successes.length >= 1, 'a verified verification was reported verified to someone');
        const verifiedAt = successes[0]?.body.verified_at;
        assert.equal(typeof verifiedAt, 'string');
        assert.equal(verifiedAt, new Date(Number(row.verified_at)).toISOString());
        for (const r of successes) {
          assert.deepEqual(r.body, { id, status: 'verified', verified: true, verified_at: verifiedAt });
        }
        // Every later check, correct or not, returns the same success and spends nothing.
        const attemptsBefore = row.attempts;
        const again = await Promise.all(
          [code, wrongCode(code, 7), code, wrongCode(code, 8)].map((later) =>
            check({ verification_id: id, code: later }),
          ),
        );
        for (const r of again) {
          assert.deepEqual(r.body, { id, status: 'verified', verified: true, verified_at: verifiedAt });
        }
        const [rowAfter] = await rowsFor(phone);
        assert.equal(rowAfter?.attempts, attemptsBefore);
      } else {
        assert.equal(successes.length, 0, 'no success is reported for a failed verification');
        assert.equal(row.attempts, 5);
      }
    }
  });

  test('attempt budget is atomic: 20 concurrent correct checks all succeed with one verified_at and spend one attempt', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const phone = freshPhone();
      const sent = await send({ phone });
      const id = String(sent.body.id);
      const code = await codeFor(t.services, phone);

      const replies = await Promise.all(
        Array.from({ length: 20 }, () => check({ verification_id: id, code })),
      );
      const first = replies[0]?.body;
      assert.equal(first?.verified, true);
      for (const r of replies) {
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { id, status: 'verified', verified: true, verified_at: first?.verified_at });
      }
      const [row] = await rowsFor(phone);
      assert.equal(row?.status, 'verified');
      assert.equal(row?.attempts, 1, 'only the first, accepted check spent an attempt');
    }
  });

  test('supersede is atomic: 5 concurrent sends to one number (within the limit) leave exactly one pending, the rest canceled', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const phone = freshPhone();
      const replies = await Promise.all(Array.from({ length: 5 }, () => send({ phone })));
      for (const r of replies) assert.equal(r.status, 201);

      const rows = await rowsFor(phone);
      assert.equal(rows.length, 5);
      const pending = rows.filter((r) => r.status === 'pending');
      assert.equal(pending.length, 1, 'exactly one verification of the number is pending');
      assert.equal(rows.filter((r) => r.status === 'canceled').length, 4);

      // Every superseded id is dead; the pending one is the one a check by phone reaches.
      for (const r of rows.filter((x) => x.status === 'canceled')) {
        const dead = await check({ verification_id: r.id, code: '000000' });
        assert.equal(dead.body.verified, false);
        assert.equal(dead.body.status, 'canceled');
        assert.equal(dead.body.attempts_remaining, 0);
      }
      const read = await call('GET', `/v1/otp/${pending[0]?.id}`);
      assert.equal(read.body.status, 'pending');
    }
  });

  test('supersede and send limit under load: 15 concurrent sends to one number: exactly 5 answer 201, 10 answer 429, one pending, the rest canceled', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const phone = freshPhone();
      const replies = await Promise.all(Array.from({ length: 15 }, () => send({ phone })));

      const created = replies.filter((r) => r.status === 201);
      const limited = replies.filter((r) => r.status === 429);
      assert.equal(created.length, 5, 'exactly the send limit succeeds');
      assert.equal(limited.length, 10, 'every other send is rate limited');
      for (const r of limited) {
        assert.equal(r.body.code, 'rate_limited');
        assert.ok(Number(r.headers.get('retry-after')) > 0);
        assert.equal(r.body.retry_after, Number(r.headers.get('retry-after')));
      }

      const rows = await rowsFor(phone);
      assert.equal(rows.length, 5, 'a rejected send creates nothing');
      assert.deepEqual(rows.map((r) => r.id).sort(), created.map((r) => String(r.body.id)).sort());
      assert.equal(rows.filter((r) => r.status === 'pending').length, 1, 'exactly one pending');
      assert.equal(rows.filter((r) => r.status === 'canceled').length, 4, 'the rest canceled');
    }
  });

  test('send limit under load: concurrent sends to several numbers are limited per number, independently', async () => {
    for (let round = 0; round < 2; round++) {
      const phones = [freshPhone(), freshPhone(), freshPhone()];
      const replies = await Promise.all(
        phones.flatMap((phone) =>
          Array.from({ length: 8 }, () => send({ phone }).then((r) => ({ phone, r }))),
        ),
      );
      for (const phone of phones) {
        const mine = replies.filter((x) => x.phone === phone);
        assert.equal(mine.filter((x) => x.r.status === 201).length, 5, `${phone}: 5 succeed`);
        assert.equal(mine.filter((x) => x.r.status === 429).length, 3, `${phone}: 3 are limited`);
        const rows = await rowsFor(phone);
        assert.equal(rows.length, 5, `${phone}: 5 verifications`);
        assert.equal(rows.filter((r) => r.status === 'pending').length, 1, `${phone}: exactly one pending`);
      }
    }
  });
});
