// Times the dashboard's heavy reads at the size of a long-lived installation, through the services the pages
// call (no HTTP, no rendering): the overview (day, week) and the log's phone search (a whole number, a partial
// one, the last three digits). Pre-fills with bench/prefill.mjs (the benchmark's --long data) into a database
// of its own that later runs reuse; needs a build (`npm run build`). Uses one core, for seconds, not minutes.
//
//   node bench/dashboard-reads.mjs [--rows 1000000] [--stores sqlite,postgres] [--fresh] [--rounds 5]
//
// Where the build keeps roll-ups and a phone directory (services.rollups, services.phoneDirectory), what the
// prefill left of their backlog (rows newer than its catch-up) is caught up first, as the sweeper would, and timed.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { OPERATOR } from '../dist/audit/actor.js';
import { createServices } from '../dist/services.js';
import { openStore } from '../dist/store/database.js';
import { parseLogFilter } from '../dist/verification/log.js';

const ROOT = resolve(import.meta.dirname, '..');
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DIR = join(ROOT, '.bench-data');
const WORKSPACE_NUMBER = '+61491570156';
const run = promisify(execFile);

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    fresh: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
  },
});
const rows = Number(opts.rows);
const rounds = Number(opts.rounds);

const SEARCHES = {
  search_whole: '+61430123456',
  search_partial: '0430 123',
  search_last_digits: '456',
};

async function adminQuery(text) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

function urlOf(store) {
  if (store === 'sqlite') return `sqlite:${join(DIR, `reads-${rows}.db`)}`;
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/pv_dashboard_reads_${rows}`;
  return url.toString();
}

/** A database holding one workspace of `rows` verifications: made once, reused by later runs. */
async function prepare(store) {
  const url = urlOf(store);
  const name = `pv_dashboard_reads_${rows}`;
  if (opts.fresh) {
    if (store === 'sqlite') rmSync(url.slice('sqlite:'.length), { force: true });
    else await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  if (store === 'postgres') {
    const { rowCount } = await adminQuery(`SELECT 1 FROM pg_database WHERE datname = '${name}'`);
    if (rowCount === 0) await adminQuery(`CREATE DATABASE "${name}"`);
  }
  let workspaceId;
  const opened = await openStore({ url, dataDir: DIR });
  try {
    const found = await opened.db.selectFrom('workspaces').select('id').where('name', '=', 'Reads').execute();
    if (found[0]) return { url, workspaceId: found[0].id };
    const services = createServices({ store: opened, publicUrl: 'http://127.0.0.1', secret: 'x'.repeat(40) });
    const ws = await services.workspaces.createWorkspace({ name: 'Reads' }, OPERATOR);
    await services.workspaces.addNumber({ workspaceId: ws.id, number: WORKSPACE_NUMBER }, OPERATOR);
    await opened.committed();
    workspaceId = ws.id;
  } finally {
    await opened.close();
  }
  process.stderr.write(`${store}: pre-filling ${rows} verifications…\n`);
  const { stdout } = await run(
    process.execPath,
    [join(ROOT, 'bench', 'prefill.mjs'), url, workspaceId, String(rows), WORKSPACE_NUMBER],
    { cwd: ROOT, maxBuffer: 1024 * 1024 },
  );
  process.stderr.write(`${store}: ${stdout}`);
  return { url, workspaceId };
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: Math.round((performance.now() - t0) * 10) / 10, value };
}

async function measure(store) {
  const { url, workspaceId: ws } = await prepare(store);
  const opened = await openStore({ url, dataDir: DIR });
  try {
    const services = createServices({ store: opened, publicUrl: 'http://127.0.0.1', secret: 'x'.repeat(40) });
    const result = { store, rows };
    if (services.rollups) {
      const rolled = await timed(() => services.rollups.catchUp());
      result.rollup_backlog = { ms: rolled.ms, ...rolled.value };
      const indexed = await timed(() => services.phoneDirectory.catchUp());
      result.directory_backlog = { ms: indexed.ms, ...indexed.value };
    }
    const reads = {
      overview_day: () => services.overview.load(ws, 'day'),
      overview_week: () => services.overview.load(ws, 'week'),
      ...Object.fromEntries(
        Object.entries(SEARCHES).map(([name, phone]) => [
          name,
          // The page's own reading of its query string: the live verifications, every status and channel.
          () => services.log.list(ws, parseLogFilter({ phone })),
        ]),
      ),
    };
    for (const [name, read] of Object.entries(reads)) {
      const times = [];
      let last;
      for (let i = 0; i < rounds; i++) {
        const { ms, value } = await timed(read);
        times.push(ms);
        last = value;
      }
      const sorted = [...times].sort((a, b) => a - b);
      result[name] = {
        ms: times,
        median_ms: sorted[Math.floor(sorted.length / 2)],
        ...(last.rows ? { rows: last.rows.length } : { sends: last.totals.sends }),
      };
    }
    return result;
  } finally {
    await opened.close();
  }
}

mkdirSync(DIR, { recursive: true });
for (const store of opts.stores.split(',').map((s) => s.trim())) {
  process.stdout.write(`${JSON.stringify(await measure(store))}\n`);
}
