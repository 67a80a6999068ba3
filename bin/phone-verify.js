#!/usr/bin/env node
// The operator CLI (see README.md, "Operator CLI"). The TypeScript sources are built into dist/ and bundled into
// dist/phone-verify.mjs by `npm ci` (scripts/bundle.mjs).

// better-sqlite3 is a Node-API 10 module: a Node without it (before 22.14) crashes without a word when the store
// opens, so refuse with a reason first. The CLI is imported only after this check.
if (!(Number(process.versions.napi) >= 10)) {
  console.error(`phone-verify needs Node.js 22 (22.14 or later) or 24; this is Node.js ${process.version}.`);
  process.exit(1);
}
// The serving process runs with a young generation of at most 8 MB a semi-space. Node 24's V8 sizes it by the
// machine's memory (up to 32 MB a semi-space here), which kept some 40 MB more resident under load for no
// measurable throughput (docs/benchmarks.md). V8 reads the size only as the process starts, so `serve` replaces
// itself with the same command plus the flag (process.execve: same process id, signals and streams; Node 22.15+
// and 23.11+ on POSIX). Where Node cannot, it serves with V8's default.
//
// And with V8's pool of helper threads (concurrent marking and sweeping, background compiles) sized by the cores
// the process may run on (`--v8-pool-size=0`: Node's own estimate from its available parallelism, one helper with
// one or two cores) instead of Node's fixed four. A process with one core (pinned, or a one-CPU container) otherwise
// runs four helpers beside its one thread of requests: during a collection all five queue for that core, and a
// request waits up to 16 ms between turns (the threads' run-queue times in /proc; docs/benchmarks.md).
const SERVE_V8_FLAGS = ['--max-semi-space-size=8', '--v8-pool-size=0'];
// The same re-exec gives glibc's allocator two arenas unless the operator chose a number: by default it makes up
// to eight a core as threads allocate (the serving thread, the reader thread, libuv's pool, V8's helpers), each
// keeping freed memory of its own. With two, a busy server stayed about 10 MB lower (195 against 205 MB) at the
// same throughput (docs/benchmarks.md). glibc reads it only as the process starts; other C libraries ignore it.
const SERVE_ENV_DEFAULTS = { MALLOC_ARENA_MAX: '2' };
// An option the operator gave (on the command line or in NODE_OPTIONS, which the command line would override) is
// theirs: only the others are added.
const given = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`.replaceAll('_', '-');
const addedV8Flags = SERVE_V8_FLAGS.filter((flag) => !given.includes(flag.split('=')[0]));
if (process.argv[2] === 'serve' && typeof process.execve === 'function' && addedV8Flags.length > 0) {
  process.execve(
    process.execPath,
    [process.execPath, ...addedV8Flags, ...process.execArgv, ...process.argv.slice(1)],
    { ...SERVE_ENV_DEFAULTS, ...process.env },
  );
}
// V8 keeps the code it compiles from the bundle (dist/phone-verify.mjs, scripts/bundle.mjs) beside the package,
// owned by whoever installed it, and the next start reuses it: about a third less CPU for a command. Where the
// folder cannot be written (a read-only image), Node goes on without it; NODE_COMPILE_CACHE, where set, wins.
const { enableCompileCache } = await import('node:module');
const { fileURLToPath } = await import('node:url');
enableCompileCache(fileURLToPath(new URL('../node_modules/.cache/phone-verify-compile', import.meta.url)));
const { main } = await import('../dist/phone-verify.mjs');

process.exitCode = await main(process.argv.slice(2));
