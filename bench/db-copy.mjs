// `db copy` on a large table: fills a SQLite file with ROWS verifications (direct inserts, every column filled),
// copies it to TARGET (sqlite:PATH or postgres://…, empty), and prints one JSON line: rows, seconds, rows a
// second, and the process's peak resident memory before and after the copy (bounded memory: the copy's peak
// does not grow with the table; run it under --max-old-space-size=64 to see the heap bounded). Build first.
// Usage: node bench/db-copy.mjs ROWS TARGET [SOURCE_FILE]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { copyDatabase } from '../dist/store/copy/copy.js';
import { openStore } from '../dist/store/database.js';

const [rowsArg, target, sourceArg] = process.argv.slice(2);
const rows = Number(rowsArg);
const source = sourceArg ?? join(mkdtempSync(join(tmpdir(), 'pv-bench-copy-')), 'source.db');

const store = await openStore(`sqlite:${source}`);
await store.close();
const db = new SQLite(source);
db.pragma('foreign_keys = OFF');
const existing = db.prepare('select count(*) from verifications').pluck().get();
if (existing < rows) {
  const columns = db.prepare(`select name, type from pragma_table_info('verifications') order by cid`).all();
  db.prepare(`insert or ignore into workspaces (id, name, send_limit, send_window_seconds, request_limit_per_minute, created_at, updated_at)
    values ('ws_bench', 'bench', 5, 600, 600, 0, 0)`).run();
  const insert = db.prepare(
    `insert into verifications (${columns.map((c) => c.name).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
  const value = (c, i) =>
    c.name === 'id'
      ? `ver_${String(i).padStart(12, '0')}`
      : c.name === 'workspace_id'
        ? 'ws_bench'
        : c.name === 'status'
          ? 'verified'
          : /bigint/i.test(c.type)
            ? 1_700_000_000_000 + i
            : /int/i.test(c.type)
              ? i % 1000
              : `+614${String(i).padStart(8, '0')} ${'x'.repeat(40)}`;
  const fill = db.transaction((from, to) => {
    for (let i = from; i < to; i++) insert.run(columns.map((c) => value(c, i)));
  });
  for (let i = existing; i < rows; i += 50_000) fill(i, Math.min(rows, i + 50_000));
}
db.close();

const before = process.resourceUsage().maxRSS;
const started = performance.now();
const report = await copyDatabase({ from: `sqlite:${source}`, to: target, force: true });
const seconds = (performance.now() - started) / 1000;
console.log(
  JSON.stringify({
    rows: report.total_rows,
    target: report.to,
    seconds: Number(seconds.toFixed(1)),
    rows_per_second: Math.round(report.total_rows / seconds),
    peak_rss_mb_before: Math.round(before / 1024),
    peak_rss_mb_after: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
