// Database outages (PostgreSQL): when the database is unreachable, killed under the pool, or locked past the
// statement timeout, requests get 503 `unavailable` with Retry-After (never a hang, never a 500 that leaks
// internals), liveness stays up, and the service recovers by itself once the database is back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import { openStore, type Store } from '../../src/store/database.js';
import { isDatabaseUnavailable } from '../../src/store/unavailable.js';
import { client, createTestApp, seedWorkspace, TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';
import { databaseUrlFor, ensureDatabase, PG_ADMIN_URL, TEST_STORE } from '../helpers/database.js';
import { eventually, quietPeriod } from '../helpers/eventually.js';

const PG_ONLY =
  TEST_STORE === 'sqlite'
    ? 'PostgreSQL only: outages of a networked database (proxy cut, pg_terminate_backend, lock/statement timeout) do not exist for embedded SQLite'
    : false;

const PG_HOST = '127.0.0.1';
const PG_PORT = Number(new URL(PG_ADMIN_URL).port || 5432);
/** A hang fails clearly after this; it is far above any bound the service sets itself. */
const HANG_MS = 20_000;

/** A TCP proxy to PostgreSQL that can be cut (open sockets destroyed, new connections refused) and restored. */
class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  constructor() {
    this.server = createServer((downstream) => {
      const upstream = new Socket();
      this.track(downstream);
      this.track(upstream);
      upstream.connect(PG_PORT, PG_HOST);
      downstream.pipe(upstream);
      upstream.pipe(downstream);
      const destroyBoth = () => {
        downstream.destroy();
        upstream.destroy();
      };
      downstream.on('error', destroyBoth).on('close', destroyBoth);
      upstream.on('error', destroyBoth).on('close', destroyBoth);
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  async start(): Promise<void> {
    await this.listen(0);
    const address = this.server.address();
    assert.ok(address && typeof address === 'object');
    this.port = address.port;
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** Destroys every open connection and stops listening: new connections are refused. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listens again on the same port. */
  async restore(): Promise<void> {
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Resolves with the response, or fails the test clearly when the request hangs. */
async function answered<T>(what: string, request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${HANG_MS} ms (a hang)`)),
      HANG_MS,
    );
  });
  try {
    return await Promise.race([request, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Strings that would reveal internals (driver errors, addresses, SQL, stacks) in a response. */
function internalsIn(raw: string, extra: string[] = []): string[] {
  const needles = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    '127.0.0.1',
    'localhost',
    String(PG_PORT),
    'postgres://',
    'select ',
    'insert ',
    'update ',
    'api_keys',
    'terminat',
    'timeout exceeded',
    'canceling statement',
    'node_modules',
    '.ts:',
    '.js:',
    '    at ',
    ...extra,
  ];
  const lower = raw.toLowerCase();
  return needles.filter((n) => lower.includes(n.toLowerCase()));
}

function assertUnavailable(what: string, res: LightMyRequestResponse, extraNeedles: string[] = []): void {
  assert.equal(res.statusCode, 503, `${what}: expected 503, got ${res.statusCode} ${res.body}`);
  assert.match(
    String(res.headers['content-type']),
    /^application\/problem\+json/,
    `${what}: content-type is application/problem+json`,
  );
  const body = res.json() as Record<string, unknown>;
  assert.equal(body.code, 'unavailable', `${what}: code is unavailable (${res.body})`);
  assert.equal(body.status, 503, `${what}: status in the body`);
  const retryAfter = res.headers['retry-after'];
  assert.ok(retryAfter !== undefined, `${what}: a Retry-After header`);
  assert.match(String(retryAfter), /^[1-9]\d*$/, `${what}: Retry-After is a positive number of seconds`);
  assert.equal(typeof body.request_id, 'string', `${what}: a request_id`);
  assert.ok((body.request_id as string).length > 0, `${what}: a non-empty request_id`);
  assert.equal(typeof body.detail, 'string', `${what}: a detail`);
  // The type is the public errors reference (PUBLIC_URL's, 127.0.0.1 in tests): the rest must name no internals.
  assert.match(String(body.type), /\/docs\/errors#unavailable$/, `${what}: type is the reference's section`);
  const { type: _publicType, ...rest } = body;
  assert.deepEqual(
    internalsIn(JSON.stringify(rest), extraNeedles),
    [],
    `${what}: nothing internal in ${res.body}`,
  );
}

function isUnavailableProblem(res: LightMyRequestResponse): boolean {
  if (res.statusCode !== 503) return false;
  const body = res.json() as Record<string, unknown>;
  return (
    body.code === 'unavailable' &&
    res.headers['retry-after'] !== undefined &&
    String(res.headers['content-type']).startsWith('application/problem+json')
  );
}

interface Assembled {
  app: FastifyInstance;
  services: Services;
  store: Store;
  dir: string;
  close(): Promise<void>;
}

/** An app on its own test database, reached at `url(databaseUrl)` (e.g. through the proxy). */
async function assemble(options: {
  url?: (databaseUrl: string) => string;
  statementTimeoutMs?: number;
}): Promise<Assembled & { databaseUrl: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pv-outage-'));
  await ensureDatabase(dir);
  const databaseUrl = databaseUrlFor(dir);
  const store = await openStore({
    url: options.url ? options.url(databaseUrl) : databaseUrl,
    dataDir: dir,
    poolMax: 4,
    statementTimeoutMs: options.statementTimeoutMs,
  });
  const services = createServices({ store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
  const app = await buildApp({ services });
  await app.ready();
  return {
    app,
    services,
    store,
    dir,
    databaseUrl,
    async close() {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function codeOf(services: Services, phone: string): Promise<string> {
  const [message] = await services.outbox.list({ to: phone, limit: 1 });
  const code = /(\d+)\s*$/.exec(message?.body ?? '')?.[1] ?? '';
  assert.equal(code.length, 6, `a six-digit code in the outbox message to ${phone}`);
  return code;
}

test('database unreachable (proxy cut): 503 unavailable with Retry-After, liveness stays up, recovery without restart', {
  skip: PG_ONLY,
  timeout: 120_000,
}, async () => {
  const proxy = new CuttableProxy();
  await proxy.start();
  let assembled: Assembled | undefined;
  try {
    const proxied = (databaseUrl: string) => {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      return url.toString();
    };
    assembled = await assemble({ url: proxied });
    const { app, services } = assembled;
    const ws = await seedWorkspace(services);
    const api = client(app, ws.key);
    const phone = '+61412340101';

    // Healthy through the proxy first; the pool now holds connections that the cut will sever.
    assert.equal((await api.ping()).statusCode, 200);
    const before = await api.send({ phone, channel: 'sms' });
    assert.equal(before.statusCode, 201, before.body);
    const verificationId = (before.json() as { id: string }).id;

    await proxy.cut();
    const extra = [String(proxy.port)];

    // Twice: first against pooled connections just severed, then against refused new connections.
    for (const round of ['severed connections', 'refused connections']) {
      assertUnavailable(`GET /v1/ping (${round})`, await answered('GET /v1/ping', api.ping()), extra);
      assertUnavailable(
        `POST /v1/otp/send (${round})`,
        await answered('POST /v1/otp/send', api.send({ phone: '+61412340102', channel: 'sms' })),
        extra,
      );
      assertUnavailable(
        `POST /v1/otp/check (${round})`,
        await answered('POST /v1/otp/check', api.check({ verification_id: verificationId, code: '000000' })),
        extra,
      );
      assertUnavailable(
        `GET /readyz (${round})`,
        await answered('GET /readyz', app.inject({ method: 'GET', url: '/readyz' })),
        extra,
      );
      const live = await answered('GET /healthz', app.inject({ method: 'GET', url: '/healthz' }));
      assert.equal(live.statusCode, 200, `GET /healthz stays 200 while the database is down (${round})`);
      assert.deepEqual(live.json(), { status: 'ok' });
    }

    await proxy.restore();

    // Recovers by itself: same app, same store, same pool.
    await eventually(
      'GET /readyz after restore',
      async () => {
        const res = await answered('GET /readyz', app.inject({ method: 'GET', url: '/readyz' }));
        return res.statusCode === 200;
      },
      { attempts: 60, intervalMs: 250 },
    );
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.deepEqual(ready.json(), { status: 'ready', database: 'postgres' });

    const ping = await answered('GET /v1/ping', api.ping());
    assert.equal(ping.statusCode, 200, ping.body);

    // The verification made before the outage is still there and still checkable (a wrong code).
    const wrong = await answered(
      'POST /v1/otp/check',
      api.check({ verification_id: verificationId, code: '000000' }),
    );
    assert.equal(wrong.statusCode, 200, wrong.body);
    assert.equal((wrong.json() as { verified: boolean }).verified, false);

    // A full send → check after recovery.
    const sent = await answered('POST /v1/otp/send', api.send({ phone, channel: 'sms' }));
    assert.equal(sent.statusCode, 201, sent.body);
    const { id } = sent.json() as { id: string };
    const code = await codeOf(services, phone);
    const checked = await answered('POST /v1/otp/check', api.check({ verification_id: id, code }));
    assert.equal(checked.statusCode, 200, checked.body);
    assert.equal((checked.json() as { verified: boolean }).verified, true);
  } finally {
    await assembled?.close();
    await proxy.close();
  }
});

test('pg_terminate_backend under the pool: every answer is success or 503 unavailable, then requests succeed again', {
  skip: PG_ONLY,
  timeout: 120_000,
}, async (t) => {
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  const testApp = await createTestApp();
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const { app, services } = testApp;
    const ws = await seedWorkspace(services);
    const api = client(app, ws.key);
    const database = new URL(testApp.databaseUrl).pathname.slice(1);

    // Fill the pool: concurrent requests each hold a connection.
    const warm = await Promise.all([api.ping(), api.ping(), api.ping(), api.ping(), api.ping(), api.ping()]);
    for (const res of warm) assert.equal(res.statusCode, 200, res.body);
    const held = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    assert.ok((held.rows[0]?.n ?? 0) >= 1, 'the pool holds connections to the test database');

    const killed = await admin.query<{ pg_terminate_backend: boolean }>(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    assert.ok(killed.rows.length >= 1, 'backends were terminated');
    assert.ok(
      killed.rows.every((r) => r.pg_terminate_backend === true),
      'every terminate succeeded',
    );

    // Immediately: a batch of mixed requests against a pool of dead connections.
    const responses = await answered(
      'the batch after pg_terminate_backend',
      Promise.all([
        api.ping(),
        api.ping(),
        api.send({ phone: '+61412340201', channel: 'sms' }),
        api.send({ phone: '+61412340202', channel: 'sms' }),
        api.ping(),
        app.inject({ method: 'GET', url: '/readyz' }),
        api.ping(),
        api.send({ phone: '+61412340203', channel: 'sms' }),
      ]),
    );
    for (const [i, res] of responses.entries()) {
      const success = res.statusCode === 200 || res.statusCode === 201;
      assert.ok(
        success || isUnavailableProblem(res),
        `request ${i}: success or 503 unavailable, got ${res.statusCode} ${res.body}`,
      );
      if (!success) assertUnavailable(`request ${i} after pg_terminate_backend`, res);
    }
    const refused = responses.filter((res) => res.statusCode === 503).length;
    t.diagnostic(`after pg_terminate_backend: ${responses.length - refused} succeeded, ${refused} got 503`);

    // Let the terminated idle connections' 'error' events arrive: a fixed wait, as it shows the process does NOT die.
    await quietPeriod(500);

    // Within a bounded number of retries requests succeed again.
    await eventually(
      'GET /v1/ping after pg_terminate_backend',
      async () => {
        const res = await answered('GET /v1/ping', api.ping());
        assert.ok(
          res.statusCode === 200 || isUnavailableProblem(res),
          `retry: success or 503 unavailable, got ${res.statusCode} ${res.body}`,
        );
        return res.statusCode === 200;
      },
      { attempts: 20, intervalMs: 250 },
    );
    const again = await Promise.all([api.ping(), api.ping(), api.ping(), api.ping(), api.ping()]);
    for (const res of again) assert.equal(res.statusCode, 200, res.body);
    const phone = '+61412340204';
    const sent = await api.send({ phone, channel: 'sms' });
    assert.equal(sent.statusCode, 201, sent.body);
    const code = await codeOf(services, phone);
    const checked = await api.check({ verification_id: (sent.json() as { id: string }).id, code });
    assert.equal((checked.json() as { verified: boolean }).verified, true);

    assert.deepEqual(
      uncaught.map((e) => String(e)),
      [],
      'no uncaught exception (e.g. an idle pooled client emitting "error")',
    );
    assert.equal(process.exitCode ?? 0, 0, 'the process is alive and not marked as failing');
  } finally {
    process.off('uncaughtException', onUncaught);
    await admin.end();
    await testApp.close();
  }
});

test('statement/lock timeout: a request blocked on a locked table answers 503 unavailable, then works again', {
  skip: PG_ONLY,
  timeout: 120_000,
}, async () => {
  // A second: far past a lock-free statement's time even on a loaded CI machine (where 200 ms was once not
  // enough for a commit), so only the held lock times a request out.
  const assembled = await assemble({ statementTimeoutMs: 1000 });
  const locker = new pg.Client({ connectionString: assembled.databaseUrl });
  await locker.connect();
  let locked = false;
  try {
    const { app, services } = assembled;
    const ws = await seedWorkspace(services);
    const api = client(app, ws.key);
    assert.equal((await api.ping()).statusCode, 200);

    await locker.query('BEGIN');
    await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
    locked = true;

    const blocked = await answered('GET /v1/ping while api_keys is locked', api.ping());
    assertUnavailable('GET /v1/ping while api_keys is locked', blocked);
    const blockedSend = await answered(
      'POST /v1/otp/send while api_keys is locked',
      api.send({ phone: '+61412340301', channel: 'sms' }),
    );
    assertUnavailable('POST /v1/otp/send while api_keys is locked', blockedSend);

    await locker.query('ROLLBACK');
    locked = false;

    const ping = await answered('GET /v1/ping after the lock is released', api.ping());
    assert.equal(ping.statusCode, 200, ping.body);
    const phone = '+61412340302';
    const sent = await answered('POST /v1/otp/send', api.send({ phone, channel: 'sms' }));
    assert.equal(sent.statusCode, 201, sent.body);
  } finally {
    if (locked) await locker.query('ROLLBACK').catch(() => {});
    await locker.end();
    await assembled.close();
  }
});

test('a database that refuses connections, or is dropped: 503 unavailable, and recovery once it allows them', {
  skip: PG_ONLY,
  timeout: 120_000,
}, async () => {
  const assembled = await assemble({});
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const database = new URL(assembled.databaseUrl).pathname.slice(1);
  const terminate = () =>
    admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
  let refusing = false;
  try {
    const { app, services } = assembled;
    const ws = await seedWorkspace(services);
    const api = client(app, ws.key);
    assert.equal((await api.ping()).statusCode, 200);

    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    refusing = true;
    await terminate();
    for (const [what, request] of [
      ['GET /v1/ping', () => api.ping()],
      ['POST /v1/otp/send', () => api.send({ phone: '+61412340401', channel: 'sms' })],
      ['GET /dashboard/signin', () => app.inject({ method: 'GET', url: '/dashboard/signin' })],
      ['POST /webhooks/twilio/car_x', () => app.inject({ method: 'POST', url: '/webhooks/twilio/car_x' })],
    ] as const) {
      const res = await answered(`${what} while the database refuses connections`, request());
      // The sign-in page and an unknown webhook account need the database too; none may answer 500.
      assert.notEqual(res.statusCode, 500, `${what}: ${res.body}`);
      if (what.startsWith('GET /v1') || what.startsWith('POST /v1')) assertUnavailable(what, res);
    }
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);

    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
    refusing = false;
    await eventually('requests succeed again once the database allows connections', async () => {
      const res = await api.ping();
      return res.statusCode === 200;
    });

    // Dropped under the running service: 503, never 500.
    await admin.query(`DROP DATABASE "${database}" WITH (FORCE)`);
    for (const [what, request] of [
      ['GET /v1/ping', () => api.ping()],
      ['POST /v1/otp/send', () => api.send({ phone: '+61412340402', channel: 'sms' })],
    ] as const) {
      assertUnavailable(`${what} after the database was dropped`, await answered(what, request()));
    }
  } finally {
    if (refusing) await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`).catch(() => {});
    await admin.end();
    await assembled.close().catch(() => {});
  }
});

test('SQLite: a full disk answers 503 unavailable (never 500, nothing half-written), then works again', {
  skip: TEST_STORE !== 'sqlite' && 'SQLite only',
  timeout: 60_000,
}, async () => {
  const t = await createTestApp();
  try {
    const ws = await seedWorkspace(t.services);
    const api = client(t.app, ws.key);
    assert.equal((await api.send({ phone: '+61412340501', channel: 'sms' })).statusCode, 201);
    await t.store.committed();
    // The database may not grow past its current size: every write that needs a new page fails SQLITE_FULL.
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(t.store.db);
    const pages = Number(rows[0]?.page_count);
    await sql.raw(`pragma max_page_count = ${pages}`).execute(t.store.db);
    let full = 0;
    for (let i = 0; i < 200 && full === 0; i++) {
      const res = await answered(
        'POST /v1/otp/send on a full disk',
        api.send({ phone: `+614123406${String(i).padStart(2, '0')}`, channel: 'sms' }),
      );
      assert.ok(
        res.statusCode === 201 || res.statusCode === 503,
        `201 or 503, never ${res.statusCode}: ${res.body}`,
      );
      if (res.statusCode === 503) {
        assertUnavailable('POST /v1/otp/send on a full disk', res);
        full++;
      }
    }
    assert.equal(full, 1, 'the disk filled up within 200 sends');
    await sql.raw('pragma max_page_count = 1073741823').execute(t.store.db);
    const after = await api.send({ phone: '+61412340599', channel: 'sms' });
    assert.equal(after.statusCode, 201, after.body);
    assert.equal((await api.get(String(after.json().id))).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('isDatabaseUnavailable: connection, shutdown, timeout and busy errors are unavailable', () => {
  const econnrefused = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
      address: '127.0.0.1',
      port: 5432,
    });
  const pgError = (code: string, message: string) => {
    const err = new pg.DatabaseError(message, message.length, 'error');
    err.code = code;
    err.severity = 'FATAL';
    return err;
  };
  const cases: [string, unknown][] = [
    ['ECONNREFUSED', econnrefused()],
    ['57P01 admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['08006 connection failure', pgError('08006', 'connection failure')],
    ['57014 statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['55P03 lock timeout', pgError('55P03', 'canceling statement due to lock timeout')],
    ['AggregateError of ECONNREFUSED', new AggregateError([econnrefused(), econnrefused()], '')],
    ['Connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    ['SQLITE_BUSY', new SQLite.SqliteError('database is locked', 'SQLITE_BUSY')],
    ['SQLITE_FULL', new SQLite.SqliteError('database or disk is full', 'SQLITE_FULL')],
    [
      '55000 not accepting connections (FATAL)',
      pgError('55000', 'database "x" is not currently accepting connections'),
    ],
    ['3D000 database does not exist', pgError('3D000', 'database "x" does not exist')],
  ];
  for (const [name, error] of cases) assert.equal(isDatabaseUnavailable(error), true, name);
});

test('isDatabaseUnavailable: bugs and client errors are not unavailable', () => {
  const pgError = (code: string, message: string) => {
    const err = new pg.DatabaseError(message, message.length, 'error');
    err.code = code;
    err.severity = 'ERROR';
    return err;
  };
  const cases: [string, unknown][] = [
    ['23505 unique violation', pgError('23505', 'duplicate key value violates unique constraint "x"')],
    ['42601 syntax error', pgError('42601', 'syntax error at or near "selec"')],
    ['a plain Error', new Error('something broke')],
  ];
  for (const [name, error] of cases) assert.equal(isDatabaseUnavailable(error), false, name);
});
