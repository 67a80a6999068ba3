// Operator interface, set-up and start: `npm start` = `node bin/phone-verify.js serve`, configured by the
// environment (PORT, HOST, DATABASE_URL), `serve --json`, graceful SIGTERM, migrations at start, and the CLI
// working against the same database while the server runs.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { freshEnv } from '../helpers/cli-env.js';
import { assertCleanFailure, seedWithCli } from '../helpers/cli-setup.js';
import {
  type CliResult,
  cliJson,
  runCli,
  type ServerProcess,
  serveExpectingRefusal,
  startServer,
} from '../helpers/process.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'phone-verify.js');

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  assert.ok(address && typeof address === 'object');
  return address.port;
}

/** `serve` as its own process, keeping all of stdout and stderr (startServer reads only the first line). */
function spawnServe(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr?.on('data', (d) => {
    out.stderr += d;
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', () => {
      if (out.stdout.includes('\n')) resolve();
    });
    void exited.then(([code]) => reject(new Error(`serve exited with ${code}: ${out.stderr}`)));
  });
  return { child, out, listening, exited };
}

async function ping(url: string, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/v1/ping`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** One line on stderr; on stdout nothing, or with --json the error as one JSON value (docs/operations.md). */
function assertOneLineFailure(result: CliResult, reason: RegExp): void {
  assertCleanFailure(result, reason);
}

describe('serve', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const servers: ServerProcess[] = [];

  after(async () => {
    for (const server of servers) await server.stop();
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('`npm start` runs `node bin/phone-verify.js serve`', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    assert.equal(pkg.scripts.start, 'node bin/phone-verify.js serve');
    assert.equal(pkg.bin['phone-verify'], 'bin/phone-verify.js');
  });

  test('serve --json prints exactly one JSON line with url (logs go to stderr); SIGTERM exits 0', async () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    const port = await freePort();
    const serve = spawnServe(['serve', '--json'], { ...env, PORT: String(port), LOG_LEVEL: 'info' });
    children.push(serve.child);
    await serve.listening;
    const line = JSON.parse(serve.out.stdout.trim()) as { url: string };
    assert.equal(line.url, `http://127.0.0.1:${port}`);
    // A request, so there is something to log.
    assert.equal((await ping(line.url)).status, 401);
    serve.child.kill('SIGTERM');
    const [code, signal] = await serve.exited;
    assert.equal(code, 0);
    assert.equal(signal, null);
    // The whole of stdout is that one line; the logs went to stderr.
    assert.equal(serve.out.stdout, `${serve.out.stdout.split('\n')[0]}\n`);
    assert.deepEqual(JSON.parse(serve.out.stdout), line);
    assert.match(serve.out.stderr, /incoming request|request completed/);
  });

  test('the serving process keeps its process id and runs with the young generation capped (--max-semi-space-size=8)', async () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    const server = await startServer(env);
    servers.push(server);
    // What the process runs now, after it replaced itself: the same pid its parent started.
    const cmdline = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes('--max-semi-space-size=8'), `cmdline: ${cmdline.join(' ')}`);
    assert.ok(cmdline.includes('serve'), `cmdline: ${cmdline.join(' ')}`);
    assert.equal((await ping(server.url)).status, 401);
  });

  test("a serving process with one core runs one V8 helper thread, not Node's four (--v8-pool-size=0), unless the operator chose a size", {
    skip: !existsSync('/usr/bin/taskset') && 'needs taskset (util-linux) to give the process one core',
  }, async () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    /** `serve` given core 0 alone: its command line and the names of its threads, once it answers. */
    const onOneCore = async (extra: Record<string, string>) => {
      const serve = spawn('/usr/bin/taskset', ['-c', '0', process.execPath, BIN, 'serve', '--json'], {
        env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const [line] = (await once(createInterface({ input: serve.stdout }), 'line')) as [string];
        assert.equal((await ping((JSON.parse(line) as { url: string }).url)).status, 401);
        const cmdline = readFileSync(`/proc/${serve.pid}/cmdline`, 'utf8').split('\0');
        const threads = readdirSync(`/proc/${serve.pid}/task`).map((tid) =>
          readFileSync(`/proc/${serve.pid}/task/${tid}/comm`, 'utf8').trim(),
        );
        return { cmdline, threads };
      } finally {
        serve.kill('SIGTERM');
        await once(serve, 'exit');
      }
    };
    // Node 24 names V8's helpers; Node 22 leaves them named after the program, so there only the flag is checked.
    const named = Number(process.versions.node.split('.')[0]) >= 24;
    const helpers = (threads: string[]) => threads.filter((name) => name === 'V8Worker').length;

    const sized = await onOneCore({});
    assert.ok(sized.cmdline.includes('--v8-pool-size=0'), `cmdline: ${sized.cmdline.join(' ')}`);
    if (named) assert.equal(helpers(sized.threads), 1, sized.threads.join(' '));

    // The operator's own size (NODE_OPTIONS, which a flag on the command line would override) is kept.
    const chosen = await onOneCore({ NODE_OPTIONS: '--v8-pool-size=3' });
    assert.ok(!chosen.cmdline.includes('--v8-pool-size=0'), `cmdline: ${chosen.cmdline.join(' ')}`);
    assert.ok(chosen.cmdline.includes('--max-semi-space-size=8'), `cmdline: ${chosen.cmdline.join(' ')}`);
    if (named) assert.equal(helpers(chosen.threads), 3, chosen.threads.join(' '));
  });

  test("the serving process runs with glibc's arenas capped at two (MALLOC_ARENA_MAX), unless the operator set it", async () => {
    const environOf = (pid: number | undefined) =>
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter((entry) => entry.startsWith('MALLOC_ARENA_MAX='));
    const { dir, env } = freshEnv();
    dirs.push(dir);
    const defaulted = await startServer(env);
    servers.push(defaulted);
    // Two, unless the environment this suite runs in chose a number itself (then that one is kept).
    assert.deepEqual(environOf(defaulted.child.pid), [
      `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`,
    ]);
    const chosen = await startServer({ ...env, MALLOC_ARENA_MAX: '4' });
    servers.push(chosen);
    assert.deepEqual(environOf(chosen.child.pid), ['MALLOC_ARENA_MAX=4']);
    assert.equal((await ping(chosen.url)).status, 401);
  });

  test('serve honours PORT and HOST', {
    skip: process.platform !== 'linux' && 'needs 127.0.0.2',
  }, async () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port), HOST: '127.0.0.2' });
    servers.push(server);
    assert.equal(server.url, `http://127.0.0.2:${port}`);
    const reached = await ping(server.url);
    assert.equal(reached.status, 401);
    assert.equal(reached.body.code, 'missing_api_key');
    // It listens on that address only.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/v1/ping`));
    assert.equal(await server.stop(), 0);
  });

  test('serve with an invalid environment exits non-zero with a one-line error naming the variable', () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    assertOneLineFailure(runCli(['serve'], { ...env, PORT: 'abc' }), /PORT/);
    const json = runCli(['serve', '--json'], { ...env, DATABASE_URL: 'mysql://x' });
    assertOneLineFailure(json, /DATABASE_URL/);
    assert.equal((JSON.parse(json.stdout) as { code: string }).code, 'invalid_configuration');
    // Nothing was created for the refused start.
    assert.equal(existsSync(join(dir, 'pv.db')), false);
  });

  test('serve on a port another process holds exits 1 with the reason, and runs on no further', async () => {
    const { dir, env } = freshEnv();
    dirs.push(dir);
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const address = holder.address();
    assert.ok(address && typeof address === 'object');
    try {
      // Before the fix it printed the reason and ran on (sweeper, delivery polling) with no listener, until killed.
      const refused = await serveExpectingRefusal({ ...env, PORT: String(address.port), HOST: '127.0.0.1' });
      assert.equal(refused.started, false);
      assert.equal(refused.status, 1, 'it exits by itself, with 1');
      assert.match(refused.stderr, /EADDRINUSE/);
      assert.equal((JSON.parse(refused.stdout) as { code: string }).code, 'internal_error');
    } finally {
      holder.close();
    }
  });

  describe('on a fresh database file, with the CLI alongside', () => {
    const { dir, env: base } = freshEnv();
    const dbFile = join(dir, 'nested', 'data', 'phone-verify.db');
    const env = { ...base, DATABASE_URL: `sqlite:${dbFile}` };
    let server: ServerProcess;

    before(async () => {
      dirs.push(dir);
      assert.equal(existsSync(dbFile), false);
      server = await startServer(env);
      servers.push(server);
    });

    test('migrations are applied at start: every migration recorded, every table there', () => {
      assert.ok(existsSync(dbFile));
      const db = new SQLite(dbFile, { readonly: true });
      try {
        const applied = (
          db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]
        ).map((r) => r.name);
        const shipped = readdirSync(join(ROOT, 'src', 'store', 'migrations'))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => f.replace(/\.ts$/, ''))
          .sort();
        assert.deepEqual(applied, shipped);
        const tables = (
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
        ).map((r) => r.name);
        for (const t of ['workspaces', 'workspace_numbers', 'api_keys', 'verifications', 'outbox_messages']) {
          assert.ok(tables.includes(t), `missing table ${t}`);
        }
      } finally {
        db.close();
      }
    });

    test('the CLI works while the server runs: a new key works at once; revoked, the next request is 401 invalid_api_key', async () => {
      const { ws, key, keyId } = seedWithCli(env);

      const ok = await ping(server.url, key);
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, { ok: true, workspace_id: ws, key_name: 'backend', scopes: ['otp'] });
      const send = await fetch(`${server.url}/v1/otp/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '+61412345678', channel: 'sms' }),
      });
      assert.equal(send.status, 201);

      const revoked = cliJson<{ revoked_at: string }>(['key', 'revoke', keyId], env);
      assert.ok(revoked.revoked_at);
      const next = await ping(server.url, key);
      assert.equal(next.status, 401);
      assert.equal(next.body.code, 'invalid_api_key');
    });
  });
});
