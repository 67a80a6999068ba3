// What the processes of a run cost, read from /proc while a scenario runs (Linux; elsewhere every figure is null):
// a process's CPU time and resident memory, the CPU time of a local PostgreSQL server's processes, and how often a
// process was switched out against its will. On a machine where the database shares the cores with the service and
// the load generator, a request costs the three together (docs/benchmarks.md, "What bounds PostgreSQL here").
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const SAMPLE_MS = 200;

const round = (x, digits) => Number(x.toFixed(digits));

/** User and system CPU ticks of a process, from its stat line (the fields after the command's parentheses). */
function ticksOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function readProc(pid) {
  try {
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return { ticks: ticksOf(pid), rssMb: rssKb / 1024 };
  } catch {
    return undefined;
  }
}

const percentOf = (ticks, seconds) => round((100 * ticks) / CLK_TCK / seconds, 1);

/** Samples a process's CPU time and resident memory every 200 ms until stopped. */
export function sampler(pid) {
  const first = readProc(pid);
  const t0 = performance.now();
  let rssMax = first?.rssMb ?? 0;
  let last = first;
  const timer = setInterval(() => {
    const s = readProc(pid);
    if (!s) return;
    last = s;
    rssMax = Math.max(rssMax, s.rssMb);
  }, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const end = readProc(pid) ?? last;
      if (!first || !end) return { cpu_percent: null, cpu_seconds: null, rss_mb: null, rss_max_mb: null };
      rssMax = Math.max(rssMax, end.rssMb);
      const seconds = (performance.now() - t0) / 1000;
      return {
        cpu_percent: percentOf(end.ticks - first.ticks, seconds),
        cpu_seconds: round((end.ticks - first.ticks) / CLK_TCK, 2),
        rss_mb: round(end.rssMb, 1),
        rss_max_mb: round(rssMax, 1),
      };
    },
  };
}

/** The CPU ticks of every process named `postgres` (the server and its backends) on this machine, by process id. */
function postgresTicks() {
  const ticks = new Map();
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return ticks;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() === 'postgres') ticks.set(name, ticksOf(name));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

/**
 * The CPU a local PostgreSQL server used until stopped (percent of one core): its processes' time, a backend that
 * ended meanwhile counted as far as it was last read. null where no such process runs here (a remote server).
 */
export function databaseSampler() {
  const first = postgresTicks();
  if (first.size === 0) return { stop: () => ({ cpu_percent: null, cpu_seconds: null }) };
  const t0 = performance.now();
  const latest = new Map(first);
  const read = () => {
    for (const [pid, ticks] of postgresTicks()) latest.set(pid, ticks);
  };
  const timer = setInterval(read, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      read();
      let used = 0;
      for (const [pid, ticks] of latest) used += ticks - (first.get(pid) ?? 0);
      return {
        cpu_percent: percentOf(used, (performance.now() - t0) / 1000),
        cpu_seconds: round(used / CLK_TCK, 2),
      };
    },
  };
}

function switchesOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]);
  } catch {
    return Number.NaN;
  }
}

/** How many times the process was switched out while it could have run (preempted), until stopped. */
export function switchesSampler(pid) {
  const first = switchesOf(pid);
  return {
    stop() {
      const switches = switchesOf(pid) - first;
      return Number.isFinite(switches) ? switches : null;
    },
  };
}

/** `amount` (a count, or CPU seconds) over the requests made meanwhile; null where either is unknown. */
function perRequest(amount, requests, digits) {
  return amount === null || !(requests > 0) ? null : round(amount / requests, digits);
}

/** Milliseconds of CPU a request: a process's CPU seconds over the requests made meanwhile. */
export const msPerRequest = (cpuSeconds, requests) =>
  perRequest(cpuSeconds === null ? null : cpuSeconds * 1000, requests, 3);

/** Times the process was preempted a request (`switchesSampler`'s count over the requests made meanwhile). */
export const preemptedPerRequest = (switches, requests) => perRequest(switches, requests, 2);
