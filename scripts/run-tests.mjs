// Runs every test file under test/ with Node's own test runner (TypeScript through tsx), once per store:
// SQLite always, then PostgreSQL at TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres).
// Where PostgreSQL is unreachable, CI (CI=true) fails loudly and a developer machine skips that run, saying so.
// Arguments narrow the run: `npm test -- verification` runs files whose path contains "verification".
// TEST_STORES=sqlite (or postgres) runs one store only; TEST_CONCURRENCY sets how many files run at once (4).
// The browser tests (test/browser/) run on SQLite only: what they add to test/dashboard/'s (both stores) is the
// pages' own script in a real Chromium, which calls the same routes whatever the store; on PostgreSQL they took 7
// minutes of a 2-core CI's test time (docs/operations.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresReachable } from './postgres-reachable.mjs';

// better-sqlite3 is a Node-API 10 module: under an older Node (before 22.14) the SQLite tests die of a segfault.
if (!(Number(process.versions.napi) >= 10)) {
  console.error(`The suite needs Node.js 22 (22.14 or later) or 24; this is Node.js ${process.version}.`);
  console.error('Run it under Node 24 with: scripts/with-node.sh 24 npm test');
  process.exit(1);
}

const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUN = `pv_test_${process.pid}_${Date.now().toString(36)}`;

/** Whether a test file runs on `store`. */
const runsOn = (file, store) => store === 'sqlite' || !file.includes('.browser.test.');

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

async function dropRunDatabases() {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${RUN}%`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    return rows.length;
  } finally {
    await client.end();
  }
}

function runSuite(store, files, tapFile) {
  console.log(`\n=== ${store}: ${files.length} test files ===\n`);
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      // Four files at once: much of the suite waits on child processes, sockets and the disk, so two cores are
      // kept busy only with more files in flight than cores (TEST_CONCURRENCY overrides).
      `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 4}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      ...files,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, TEST_STORE: store, TEST_PG_RUN: RUN, TEST_PG_URL: PG_ADMIN_URL },
    },
  );
  const tap = readFileSync(tapFile, 'utf8');
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
  // A test cancelled by a failed hook is a failure too.
  const fail = count('fail') + count('cancelled');
  return { status: result.status ?? 1, pass: count('pass'), fail, skipped: count('skipped') };
}

const filters = process.argv.slice(2);
const files = findTests('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const wanted = (process.env.TEST_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const stores = [];
if (wanted.includes('sqlite')) stores.push('sqlite');
if (wanted.includes('postgres')) {
  const reachable = await postgresReachable(PG_ADMIN_URL);
  if (reachable === true) stores.push('postgres');
  else if (process.env.CI === 'true' || process.env.CI === '1') {
    console.error(
      `PostgreSQL at ${PG_ADMIN_URL} is unreachable (${reachable}): CI runs every test on PostgreSQL too.`,
    );
    process.exit(1);
  } else {
    console.warn(`\nSKIPPING the PostgreSQL run: ${PG_ADMIN_URL} is unreachable (${reachable}).`);
    console.warn('Start PostgreSQL or set TEST_PG_URL to run the suite against it as CI does.\n');
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'pv-run-'));
const totals = { pass: 0, fail: 0, skipped: 0 };
let status = 0;
try {
  for (const store of stores) {
    const storeFiles = files.filter((f) => runsOn(f, store));
    if (storeFiles.length === 0) {
      console.log(`\n${store}: none of these files runs on it (the browser tests run on SQLite only)`);
      continue;
    }
    const result = runSuite(store, storeFiles, join(scratch, `${store}.tap`));
    totals.pass += result.pass;
    totals.fail += result.fail;
    totals.skipped += result.skipped;
    console.log(`\n${store}: ${result.pass} passed, ${result.fail} failed, ${result.skipped} skipped`);
    if (result.status !== 0) status = result.status;
  }
} finally {
  if (stores.includes('postgres'))
    await dropRunDatabases().catch((e) => console.warn(`cleanup: ${e.message}`));
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\nstores: ${stores.join(', ')}`);
console.log(`total: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(status === 0 && totals.fail > 0 ? 1 : status);
