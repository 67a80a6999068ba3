// The real thing: the CLI and the server as separate processes, exactly as an operator runs them.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'phone-verify.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `input`, when given, is its standard input (else stdin is empty). */
export function runCli(args: string[], env: Record<string, string>, input?: string): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    input,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** runCli, without blocking, so that several commands run side by side. */
export function runCliAsync(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Runs a CLI command with --json and returns its one JSON value, failing loudly otherwise. */
export function cliJson<T = Record<string, unknown>>(args: string[], env: Record<string, string>): T {
  const result = runCli([...args, '--json'], env);
  if (result.status !== 0) throw new Error(`phone-verify ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  url: string;
  /** The whole JSON line `serve --json` printed once listening. */
  started: Record<string, unknown>;
  child: ChildProcess;
  /** Everything the server wrote to stderr (its logs, with --json) since it started. */
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `phone-verify serve --json` on a free port and waits for its one JSON line. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--json'], {
    // Sends wait for their first hand-over however slow the machine (DELIVERY_WAIT_MS is tested on its own).
    // Four PostgreSQL connections a server, as the suite's in-process apps have (helpers/app.ts): the suite runs
    // several files at once, some with three servers each, and at ten a server they could take all of
    // PostgreSQL's 100 connections ("too many clients": the sends of a scale-out test answered 503).
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'warn',
      DELIVERY_WAIT_MS: '60000',
      DATABASE_POOL_MAX: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => String(line)),
    once(child, 'exit').then(([code]) => {
      throw new Error(`server exited with ${code}: ${stderr}`);
    }),
  ]);
  const started = JSON.parse(first) as { url: string };
  return {
    url: started.url,
    started,
    child,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode; // already gone
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/**
 * Runs `phone-verify serve --json`, expecting it to refuse to start: its exit status and output. A server that
 * starts instead (its JSON line arrives) is stopped at once and reported with `started: true`, so a test of a
 * refusal fails rather than hangs.
 */
function listeningLine(stdout: string): boolean {
  if (!stdout.includes('\n')) return false;
  try {
    return typeof (JSON.parse(stdout.split('\n')[0] ?? '') as { url?: unknown }).url === 'string';
  } catch {
    return false;
  }
}

/** How long a refused start may take to exit however slow the machine; past it, the process is killed. */
const REFUSAL_DEADLINE_MS = 30_000;

export async function serveExpectingRefusal(
  env: Record<string, string>,
): Promise<CliResult & { started: boolean }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--json'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let started = false;
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  child.stdout?.on('data', (d) => {
    stdout += d;
    // The listening line ({ "url", … } on one line); a refusal's JSON error is no such line.
    if (!started && listeningLine(stdout)) {
      started = true;
      child.kill('SIGTERM');
    }
  });
  // A refusal that never exits (it ran on with no listener, say) is killed, and reported as no exit status.
  const hung = setTimeout(() => child.kill('SIGKILL'), REFUSAL_DEADLINE_MS);
  const [status] = (await once(child, 'close')) as [number | null];
  clearTimeout(hung);
  return { status, stdout, stderr, started };
}
