// Issue "Several processes, one database": three real service processes (`node bin/phone-verify.js serve`) on
// different ports share ONE database (the same environment), with requests spread round-robin over them and
// fired together with Promise.all. The invariants of api-decisions hold across the processes: the attempt
// budget and supersede are atomic, the per-number send limit holds ("Limits hold across every server process
// sharing a database"), so does the failed-guess ceiling across a number's codes, a revoked key is refused by every
// process on the very next request, an Idempotency-Key sends once whichever processes its duplicates reach, and
// several processes starting at once on a fresh database all come up with every migration applied exactly once.
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';
import type { Check, Problem, Verification } from '../helpers/api-types.js';
import { freshEnv } from '../helpers/cli-env.js';
import { seedWithCli } from '../helpers/cli-setup.js';
import { dropDatabase, TEST_STORE } from '../helpers/database.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';

const PROCESSES = 3;
const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', 'src', 'store', 'migrations');

interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** Starts `count` servers at once on one environment; if any fails, stops the others before throwing. */
async function startServers(env: Record<string, string>, count: number): Promise<ServerProcess[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, () => startServer(env)));
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (failed.length > 0) {
    await Promise.all(started.map((s) => s.stop()));
    throw new Error(`${failed.length} of ${count} servers did not start: ${failed.map(String).join('; ')}`);
  }
  return started;
}

async function request<T = Record<string, unknown>>(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  key?: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** The code of the newest SMS to a number, read with the CLI (`outbox --to PHONE --json`, newest first). */
function smsCode(phone: string, verificationId: string, env: Record<string, string>): string {
  const [message] = cliJson<{ body: string; channel: string; verification_id: string }[]>(
    ['outbox', '--to', phone, '--limit', '1'],
    env,
  );
  assert.ok(message, `no message to ${phone}`);
  assert.equal(message.channel, 'sms');
  assert.equal(message.verification_id, verificationId, 'the newest message is for this verification');
  const code = /(\d+)\s*$/.exec(message.body)?.[1];
  assert.ok(code, `no code in ${message.body}`);
  return code;
}

/** A code of the same length that is certainly not `code`. */
function wrongCode(code: string, i: number): string {
  let candidate = String(i % 10 ** code.length).padStart(code.length, '0');
  if (candidate === code) candidate = String((i + 1) % 10 ** code.length).padStart(code.length, '0');
  return candidate;
}

// Fresh AU mobiles per scenario: +6141237xxxx, never ending 0998/0999 (the development provider's failures).
let phoneSeq = 0;
function freshPhone(): string {
  phoneSeq += 1;
  assert.ok(phoneSeq < 998, 'phone sequence exhausted');
  return `+6141237${String(phoneSeq).padStart(4, '0')}`;
}

describe('several processes, one database: three servers share one database', () => {
  const { dir, env } = freshEnv();
  let servers: ServerProcess[] = [];
  let key = '';
  let keyId = '';
  let ws = '';
  let next = 0;

  before(async () => {
    ({ ws, key, keyId } = seedWithCli(env));
    servers = await startServers(env, PROCESSES);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The next process, round-robin. */
  const nextBase = () => {
    const server = servers[next++ % servers.length];
    assert.ok(server);
    return server.url;
  };
  const call = <T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown) =>
    request<T>(nextBase(), method, path, key, body);
  const send = (phone: string, body: Record<string, unknown> = {}) =>
    call<Verification>('POST', '/v1/otp/send', { phone, channel: 'sms', ...body });
  const check = (body: Record<string, unknown>) => call<Check>('POST', '/v1/otp/check', body);
  const read = (id: string) => call<Verification>('GET', `/v1/otp/${id}`);

  test('the three processes listen on different ports and each one serves the seeded key', async () => {
    assert.equal(servers.length, PROCESSES);
    assert.equal(new Set(servers.map((s) => new URL(s.url).port)).size, PROCESSES);
    for (const server of servers) {
      const ping = await request(server.url, 'GET', '/v1/ping', key);
      assert.equal(ping.status, 200);
      assert.equal(ping.body.workspace_id, ws);
    }
  });

  test('/healthz answers 200 {status: "ok"} and /readyz 200 {status: "ready", database} on every process', async () => {
    for (const server of servers) {
      const health = await request(server.url, 'GET', '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const ready = await request(server.url, 'GET', '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'ready', database: TEST_STORE });
    }
  });

  test('attempt budget across processes: 30 concurrent wrong checks on max_attempts 5 spend exactly 5 and fail it; the correct code is then refused', async () => {
    for (let round = 0; round < 3; round++) {
      const phone = freshPhone();
      const sent = await send(phone, { max_attempts: 5 });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      const id = sent.body.id;
      const code = smsCode(phone, id, env);

      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => check({ verification_id: id, code: wrongCode(code, i) })),
      );
      for (const r of replies) {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.verified, false);
      }
      // The four wrong attempts that left some budget are each reported once, with their own count.
      const pending = replies.filter((r) => r.body.status === 'pending');
      assert.deepEqual(pending.map((r) => r.body.attempts).sort(), [1, 2, 3, 4]);
      assert.deepEqual(pending.map((r) => r.body.attempts_remaining).sort(), [1, 2, 3, 4]);
      // Every other reply is the failed body, at exactly max_attempts.
      const failed = replies.filter((r) => r.body.status !== 'pending');
      assert.equal(failed.length, 26);
      for (const r of failed) {
        assert.deepEqual(r.body, {
          id,
          status: 'failed',
          verified: false,
          attempts: 5,
          attempts_remaining: 0,
        });
      }

      const afterWrong = await read(id);
      assert.equal(afterWrong.status, 200);
      assert.equal(afterWrong.body.status, 'failed');
      assert.equal(afterWrong.body.attempts, 5, 'exactly max_attempts attempts were spent');

      // The budget is spent: the correct code is not accepted (on any process) and nothing more is spent.
      const late = await Promise.all(
        Array.from({ length: PROCESSES }, () => check({ verification_id: id, code })),
      );
      for (const r of late) {
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, {
          id,
          status: 'failed',
          verified: false,
          attempts: 5,
          attempts_remaining: 0,
        });
      }
      const final = await read(id);
      assert.equal(final.body.status, 'failed');
      assert.equal(final.body.attempts, 5);
      assert.equal(final.body.verified_at, null);
    }
  });

  test('attempt budget across processes: concurrent correct and wrong checks never spend more than max_attempts, and every success reports the same verified_at', async () => {
    for (let round = 0; round < 3; round++) {
      const phone = freshPhone();
      const sent = await send(phone, { max_attempts: 5 });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      const id = sent.body.id;
      const code = smsCode(phone, id, env);

      // Six correct codes among 24 wrong ones, interleaved (a different offset each round).
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          check({ verification_id: id, code: i % 5 === round ? code : wrongCode(code, i) }),
        ),
      );
      for (const r of replies) {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        if (r.body.attempts !== undefined) {
          assert.ok(r.body.attempts <= 5, `attempts ${r.body.attempts} exceeds max_attempts`);
        }
      }
      // Wrong attempts that left budget are totally ordered: no count is reported twice.
      const pendingCounts = replies.filter((r) => r.body.status === 'pending').map((r) => r.body.attempts);
      assert.equal(new Set(pendingCounts).size, pendingCounts.length, `counts ${pendingCounts}`);

      const final = await read(id);
      assert.equal(final.status, 200);
      assert.ok(final.body.attempts <= 5, `stored attempts ${final.body.attempts} exceed max_attempts`);
      const successes = replies.filter((r) => r.body.verified === true);
      if (final.body.status === 'verified') {
        assert.ok(successes.length >= 1, 'a verified verification was reported verified to someone');
        const verifiedAt = final.body.verified_at;
        assert.equal(typeof verifiedAt, 'string');
        for (const r of successes) {
          assert.deepEqual(r.body, { id, status: 'verified', verified: true, verified_at: verifiedAt });
        }
        // Later checks on every process, right or wrong, return the same success and spend nothing.
        const again = await Promise.all(
          [code, wrongCode(code, 1), code].map((c) => check({ verification_id: id, code: c })),
        );
        for (const r of again) {
          assert.deepEqual(r.body, { id, status: 'verified', verified: true, verified_at: verifiedAt });
        }
        assert.equal((await read(id)).body.attempts, final.body.attempts);
      } else {
        assert.equal(final.body.status, 'failed');
        assert.equal(successes.length, 0, 'no success is reported for a failed verification');
        assert.equal(final.body.attempts, 5);
      }
    }
  });

  test('supersede across processes: 4 concurrent sends to one number leave exactly one pending, the rest canceled', async () => {
    for (let round = 0; round < 3; round++) {
      const phone = freshPhone();
      const replies = await Promise.all(Array.from({ length: 4 }, () => send(phone)));
      for (const r of replies) assert.equal(r.status, 201, JSON.stringify(r.body));
      const ids = replies.map((r) => r.body.id);
      assert.equal(new Set(ids).size, 4);

      // Read each one back through any process.
      const reads = await Promise.all(ids.map((id) => read(id)));
      for (const r of reads) assert.equal(r.status, 200);
      const statuses = reads.map((r) => r.body.status);
      assert.equal(statuses.filter((s) => s === 'pending').length, 1, `statuses: ${statuses}`);
      assert.equal(statuses.filter((s) => s === 'canceled').length, 3, `statuses: ${statuses}`);
    }
  });

  test('send limit across processes: 12 concurrent sends to one number give exactly 5 × 201 and 7 × 429 rate_limited with Retry-After', async () => {
    const phone = freshPhone();
    const replies = await Promise.all(Array.from({ length: 12 }, () => send(phone)));

    const created = replies.filter((r) => r.status === 201);
    const limited = replies.filter((r) => r.status === 429);
    assert.equal(created.length, 5, `statuses: ${replies.map((r) => r.status)}`);
    assert.equal(limited.length, 7, `statuses: ${replies.map((r) => r.status)}`);
    for (const r of limited) {
      const problem = r.body as unknown as Problem;
      assert.equal(problem.code, 'rate_limited');
      const retryAfter = r.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^[1-9]\d*$/, 'Retry-After is a positive number of seconds');
      assert.equal(typeof problem.retry_after, 'number');
      assert.ok(Number(problem.retry_after) > 0);
    }

    // The limit is per number: the five that were created are the number's verifications, one of them pending.
    const reads = await Promise.all(created.map((r) => read(r.body.id)));
    const statuses = reads.map((r) => r.body.status);
    assert.equal(statuses.filter((s) => s === 'pending').length, 1, `statuses: ${statuses}`);

    // And a thirteenth send on every process is still refused.
    for (const server of servers) {
      const more = await request<Problem>(server.url, 'POST', '/v1/otp/send', key, { phone, channel: 'sms' });
      assert.equal(more.status, 429);
      assert.equal(more.body.code, 'rate_limited');
    }
  });

  test('Idempotency-Key across processes: 20 concurrent sends with one key give one verification, one 201, the rest 409 or its replay', async () => {
    for (let round = 0; round < 3; round++) {
      const phone = freshPhone();
      const body = { phone, channel: 'sms' };
      const headers = { 'idempotency-key': `scale-out-${round}` };
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          request<Verification>(nextBase(), 'POST', '/v1/otp/send', key, body, headers),
        ),
      );
      const created = replies.filter(
        (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
      );
      assert.equal(created.length, 1, `statuses: ${replies.map((r) => r.status)}`);
      const [original] = created;
      assert.ok(original);
      for (const r of replies) {
        if (r === original) continue;
        if (r.status === 201) {
          assert.equal(r.headers.get('idempotent-replayed'), 'true');
          assert.deepEqual(r.body, original.body);
        } else {
          assert.equal(r.status, 409, JSON.stringify(r.body));
          assert.equal((r.body as unknown as Problem).code, 'idempotency_key_in_use');
          assert.equal(r.headers.get('retry-after'), '1');
        }
      }
      // One send: the one verification is still pending (a second send would have canceled it), one message.
      assert.equal((await read(original.body.id)).body.status, 'pending');
      const messages = cliJson<unknown[]>(['outbox', '--to', phone, '--limit', '50'], env);
      assert.equal(messages.length, 1);
      // Afterwards every process replays the first answer.
      for (const server of servers) {
        const again = await request<Verification>(server.url, 'POST', '/v1/otp/send', key, body, headers);
        assert.equal(again.status, 201);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(again.body, original.body);
      }
    }
  });

  test('guess ceiling across processes: past 15 failures, 30 concurrent wrong checks judge exactly 5; then every check and send of the number is 429', async () => {
    // Many codes to one number: the send limit must not be what refuses them (restored for the tests after).
    cliJson(['workspace', 'limits', '--workspace', ws, '--sends-per-number', '100'], env);
    try {
      const phone = freshPhone();
      // Five digits against six-digit codes: certainly wrong.
      const wrong = '12345';
      const burst = async (id: string, n: number) =>
        Promise.all(Array.from({ length: n }, () => check({ verification_id: id, code: wrong })));
      // 15 failures over two codes, each code's checks fired together.
      for (const [max, n] of [
        [10, 10],
        [5, 5],
      ] as const) {
        const sent = await send(phone, { max_attempts: max });
        assert.equal(sent.status, 201, JSON.stringify(sent.body));
        for (const r of await burst(sent.body.id, n)) assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const sent = await send(phone, { max_attempts: 10 });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      const id = sent.body.id;
      const code = smsCode(phone, id, env);

      const replies = await burst(id, 30);
      const judged = replies.filter((r) => r.status === 200);
      assert.equal(judged.length, 5, `statuses: ${replies.map((r) => r.status)}`);
      assert.deepEqual(judged.map((r) => r.body.attempts).sort(), [1, 2, 3, 4, 5]);
      for (const r of replies.filter((x) => x.status !== 200)) {
        assert.equal(r.status, 429, JSON.stringify(r.body));
        assert.equal((r.body as unknown as Problem).code, 'rate_limited');
        assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      }
      assert.equal((await read(id)).body.attempts, 5);

      // Every process refuses the right code (spending nothing) and a new code for the number.
      for (const server of servers) {
        const right = await request<Problem>(server.url, 'POST', '/v1/otp/check', key, {
          verification_id: id,
          code,
        });
        assert.equal(right.status, 429, JSON.stringify(right.body));
        const more = await request<Problem>(server.url, 'POST', '/v1/otp/send', key, {
          phone,
          channel: 'sms',
        });
        assert.equal(more.status, 429, JSON.stringify(more.body));
        assert.equal(more.body.code, 'rate_limited');
      }
      const after = await read(id);
      assert.equal(after.body.status, 'pending');
      assert.equal(after.body.attempts, 5);
      // Another number is unaffected.
      assert.equal((await send(freshPhone())).status, 201);
    } finally {
      cliJson(['workspace', 'limits', '--workspace', ws, '--sends-per-number', '5'], env);
    }
  });

  test('guess ceiling across processes: 60 concurrent wrong checks by phone, with sends among them, never judge more than 20', async () => {
    cliJson(['workspace', 'limits', '--workspace', ws, '--sends-per-number', '100'], env);
    try {
      const phone = freshPhone();
      const wrong = '12345';
      const first = await send(phone, { max_attempts: 10 });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const replies = await Promise.all(
        Array.from({ length: 66 }, (_, i) =>
          i % 11 === 5 ? send(phone, { max_attempts: 10 }) : check({ phone, code: wrong }),
        ),
      );
      for (const r of replies) assert.ok([200, 201, 429].includes(r.status), JSON.stringify(r.body));
      // Every code of the number is one these sends made; each attempt on one is a wrong check judged.
      const ids = [first.body.id, ...replies.filter((r) => r.status === 201).map((r) => r.body.id as string)];
      const judged = async () =>
        (await Promise.all(ids.map((id) => read(id)))).reduce((sum, r) => sum + r.body.attempts, 0);
      const total = await judged();
      assert.ok(total <= 20, `${total} wrong checks judged`);
      // The rest of the budget one at a time on fresh codes, wherever the burst stopped: exactly 20 in the end.
      let left = 20 - total;
      while (left > 0) {
        const sent = await send(phone, { max_attempts: 10 });
        assert.equal(sent.status, 201, JSON.stringify(sent.body));
        ids.push(sent.body.id);
        for (let attempt = 0; attempt < 10 && left > 0; attempt++, left--) {
          const res = await check({ verification_id: sent.body.id, code: wrong });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
      }
      assert.equal(await judged(), 20);
      for (const server of servers) {
        const more = await request<Problem>(server.url, 'POST', '/v1/otp/send', key, {
          phone,
          channel: 'sms',
        });
        assert.equal(more.status, 429, JSON.stringify(more.body));
      }
    } finally {
      cliJson(['workspace', 'limits', '--workspace', ws, '--sends-per-number', '5'], env);
    }
  });

  test('revocation in one process takes effect in the others on the very next request', async () => {
    const created = cliJson<{ id: string; key: string }>(
      ['key', 'create', '--workspace', ws, '--name', 'to-revoke'],
      env,
    );
    const [a, b, c] = servers;
    assert.ok(a && b && c);
    const used = await request(a.url, 'GET', '/v1/ping', created.key);
    assert.equal(used.status, 200, 'the new key works on process A');
    // Warm processes B and C with the key too, so nothing they might keep from a success can hide a revocation.
    assert.equal((await request(b.url, 'GET', '/v1/ping', created.key)).status, 200);
    assert.equal((await request(c.url, 'GET', '/v1/ping', created.key)).status, 200);

    const revoked = cliJson<{ id: string; revoked_at: string | null }>(['key', 'revoke', created.id], env);
    assert.equal(revoked.id, created.id);
    assert.equal(typeof revoked.revoked_at, 'string');

    for (const server of [b, c, a]) {
      const next = await request<Problem>(server.url, 'GET', '/v1/ping', created.key);
      assert.equal(next.status, 401, `${server.url}: ${JSON.stringify(next.body)}`);
      assert.equal(next.body.code, 'invalid_api_key');
    }
    // The seeded key is untouched.
    assert.notEqual(keyId, created.id);
    for (const server of servers) {
      assert.equal((await request(server.url, 'GET', '/v1/ping', key)).status, 200);
    }
  });
});

// Concurrent first starts race for the migrations, and a race need not show every time: several rounds, each on
// a fresh database of its own.
const FRESH_ROUNDS = 3;

for (let round = 1; round <= FRESH_ROUNDS; round++) {
  describe(`several processes, one database: three starting at once on a fresh database (round ${round})`, () => {
    let fresh: { dir: string; env: Record<string, string> } | undefined;
    let servers: ServerProcess[] = [];

    before(async () => {
      fresh = freshEnv();
      servers = await startServers(fresh.env, PROCESSES);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      if (fresh) {
        await dropDatabase(fresh.dir);
        rmSync(fresh.dir, { recursive: true, force: true });
      }
    });

    test('all three come up and serve /readyz 200 {status: "ready"}', async () => {
      assert.equal(servers.length, PROCESSES);
      for (const server of servers) {
        const ready = await request(server.url, 'GET', '/readyz');
        assert.equal(ready.status, 200);
        assert.deepEqual(ready.body, { status: 'ready', database: TEST_STORE });
      }
    });

    test('every migration is applied exactly once: one kysely_migration row per migration file', async () => {
      assert.ok(fresh);
      const files = readdirSync(MIGRATIONS_DIR)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => f.replace(/\.ts$/, ''))
        .sort();
      assert.ok(files.length > 0);
      const store = await openStore({
        url: fresh.env.DATABASE_URL as string,
        dataDir: fresh.dir,
        poolMax: 1,
      });
      try {
        const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(store.db);
        const names = rows.map((r) => r.name).sort();
        assert.equal(names.length, files.length, `rows: ${names}`);
        assert.deepEqual(names, files);
      } finally {
        await store.close();
      }
    });
  });
}
