// The chart of a run, as a self-contained SVG (no browser, no library): on the left, each scenario's
// throughput as a share of the ceiling measured in the same run, one bar per store, with the SQLite target
// marked; on the right, p50 (solid) and p99 (light) latency per scenario and store.
// Run directly (`node bench/chart.mjs [results.json] [chart.svg]`), it redraws a chart from saved results.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const SCENARIOS = ['ping', 'send', 'check-wrong', 'check-correct', 'mixed'];
const COLORS = { sqlite: '#2f6db5', postgres: '#d9822b' };
const LIGHT = { sqlite: '#a9c4e6', postgres: '#f1c9a1' };
const TARGETS = { ping: 0.25, send: 0.05, 'check-wrong': 0.1, 'check-correct': 0.1 };

const esc = (s) =>
  String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten. */
function niceMax(x) {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= x) ?? 10 * p;
}

function panel({
  x,
  y,
  width,
  height,
  title,
  unit,
  max,
  groups,
  stores,
  firstOf,
  secondOf,
  targetOf,
  label,
}) {
  const parts = [];
  const top = niceMax(max);
  const ticks = 5;
  parts.push(`<text x="${x}" y="${y - 14}" class="title">${esc(title)}</text>`);
  for (let i = 0; i <= ticks; i++) {
    const v = (top * i) / ticks;
    const ty = y + height - (height * i) / ticks;
    parts.push(`<line x1="${x}" x2="${x + width}" y1="${ty}" y2="${ty}" class="grid"/>`);
    parts.push(`<text x="${x - 6}" y="${ty + 4}" class="tick" text-anchor="end">${esc(label(v))}</text>`);
  }
  parts.push(
    `<text x="${x - 44}" y="${y + height / 2}" class="unit" transform="rotate(-90 ${x - 44} ${y + height / 2})" text-anchor="middle">${esc(unit)}</text>`,
  );
  const groupWidth = width / groups.length;
  const barWidth = Math.min(34, (groupWidth * 0.7) / Math.max(1, stores.length));
  groups.forEach((group, gi) => {
    const gx = x + gi * groupWidth + (groupWidth - barWidth * stores.length) / 2;
    stores.forEach((store, si) => {
      const bx = gx + si * barWidth;
      const second = secondOf?.(group, store);
      if (second !== undefined && second !== null) {
        const h = Math.min(height, (height * second) / top);
        parts.push(
          `<rect x="${bx + 1}" y="${y + height - h}" width="${barWidth - 2}" height="${h}" fill="${LIGHT[store]}"><title>${esc(`${store} ${group} p99 ${second} ms`)}</title></rect>`,
        );
        parts.push(
          `<text x="${bx + barWidth / 2}" y="${y + height - h - 4}" class="value" text-anchor="middle">${esc(label(second))}</text>`,
        );
      }
      const value = firstOf(group, store);
      if (value === undefined || value === null) return;
      const h = Math.min(height, (height * value) / top);
      parts.push(
        `<rect x="${bx + 1}" y="${y + height - h}" width="${barWidth - 2}" height="${h}" fill="${COLORS[store]}"><title>${esc(`${store} ${group}: ${label(value)}`)}</title></rect>`,
      );
      parts.push(
        `<text x="${bx + barWidth / 2}" y="${y + height - h - 4}" class="value" text-anchor="middle">${esc(label(value))}</text>`,
      );
    });
    const target = targetOf?.(group);
    if (target !== undefined) {
      const ty = y + height - (height * target) / top;
      parts.push(
        `<line x1="${gx - 4}" x2="${gx + barWidth * stores.length + 4}" y1="${ty}" y2="${ty}" class="target"><title>SQLite target ${label(target)}</title></line>`,
      );
    }
    parts.push(
      `<text x="${x + gi * groupWidth + groupWidth / 2}" y="${y + height + 18}" class="tick" text-anchor="middle">${esc(group)}</text>`,
    );
  });
  parts.push(`<line x1="${x}" x2="${x + width}" y1="${y + height}" y2="${y + height}" class="axis"/>`);
  return parts.join('\n');
}

export function renderChart(results) {
  const stores = Object.entries(results.stores)
    .filter(([, r]) => !r.skipped)
    .map(([name]) => name);
  const scenario = (group, store) => results.stores[store]?.scenarios?.[group];
  const ratios = stores.flatMap((s) => SCENARIOS.map((g) => scenario(g, s)?.ratio ?? 0));
  const p99s = stores.flatMap((s) => SCENARIOS.map((g) => scenario(g, s)?.latency.p99 ?? 0));
  const W = 1100;
  const H = 480;
  const pct = (v) => `${Math.round(v * 1000) / 10}%`;
  const ms = (v) => `${Math.round(v * 10) / 10}`;
  const left = panel({
    x: 80,
    y: 100,
    width: 440,
    height: 300,
    title: 'Throughput as a share of the ceiling (same run)',
    unit: 'req/s ÷ ceiling req/s',
    max: Math.max(0.3, ...ratios),
    groups: SCENARIOS,
    stores,
    firstOf: (g, s) => scenario(g, s)?.ratio,
    targetOf: (g) => TARGETS[g],
    label: pct,
  });
  const right = panel({
    x: 630,
    y: 100,
    width: 440,
    height: 300,
    title: 'Latency: p50 (solid) and p99 (light); mixed p99 target',
    unit: 'milliseconds',
    max: Math.max(1, ...p99s),
    groups: SCENARIOS,
    stores,
    firstOf: (g, s) => scenario(g, s)?.latency.p50,
    secondOf: (g, s) => scenario(g, s)?.latency.p99,
    targetOf: (g) => (g === 'mixed' ? 20 : undefined),
    label: ms,
  });
  const legend = stores
    .map(
      (s, i) =>
        `<rect x="${80 + i * 120}" y="${H - 36}" width="14" height="14" fill="${COLORS[s]}"/><text x="${100 + i * 120}" y="${H - 24}" class="tick">${esc(s)}</text>`,
    )
    .join('\n');
  const c = results.ceiling;
  const rows = results.options.rows
    ? ` · ${results.options.rows.toLocaleString('en-US')} verifications pre-filled`
    : '';
  const subtitle = `ceiling (bare Fastify, GET): ${Math.round(c.rps)} req/s, p99 ${c.latency.p99} ms · ${results.mode} run, ${results.options.duration_s} s a scenario, ${results.options.connections} connections${rows}`;
  const machine = `${results.machine.cpus} cores (${results.machine.cpu_model}), Node ${results.machine.node}, ${results.machine.pinned} · ${results.started_at.slice(0, 16).replace('T', ' ')} UTC`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" role="img" aria-labelledby="chart-title">
<title id="chart-title">phone-verify benchmark: throughput as a share of the ceiling, and p50/p99 latency, per scenario and store</title>
<style>
  .title { font-size: 15px; font-weight: 600; fill: #222; }
  .head { font-size: 18px; font-weight: 700; fill: #111; }
  .sub { font-size: 12px; fill: #555; }
  .tick { font-size: 12px; fill: #444; }
  .unit { font-size: 12px; fill: #666; }
  .value { font-size: 10px; fill: #333; }
  .grid { stroke: #e4e4e4; stroke-width: 1; }
  .axis { stroke: #888; stroke-width: 1; }
  .target { stroke: #c0392b; stroke-width: 2; stroke-dasharray: 5 3; }
</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="20" y="30" class="head">phone-verify benchmark</text>
<text x="20" y="48" class="sub">${esc(subtitle)}</text>
<text x="20" y="64" class="sub">${esc(machine)}</text>
${left}
${right}
${legend}
<line x1="${80 + stores.length * 120}" x2="${110 + stores.length * 120}" y1="${H - 29}" y2="${H - 29}" class="target"/>
<text x="${118 + stores.length * 120}" y="${H - 24}" class="tick">SQLite target</text>
</svg>
`.replace(/(\d\.\d\d)\d+/g, '$1');
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const from = process.argv[2] ?? resolve(import.meta.dirname, 'results.json');
  const to = process.argv[3] ?? resolve(import.meta.dirname, 'chart.svg');
  writeFileSync(to, renderChart(JSON.parse(readFileSync(from, 'utf8'))));
}
