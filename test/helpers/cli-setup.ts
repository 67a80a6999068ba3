// Set-up and checks shared by the tests that drive the built CLI and server (test/cli/*, test/process/*): a data
// directory per suite, workspaces and keys made through the CLI, what a clean success or failure of one command
// looks like, and HTTP calls to a running server.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after } from 'node:test';
import { freshEnv } from './cli-env.js';
import { type CliResult, cliJson } from './process.js';

/** An RFC 3339 UTC timestamp with milliseconds, as the CLI prints them. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A fresh data directory and environment for the calling suite, removed after it. */
export function cliSuiteEnv(): { dir: string; env: Record<string, string> } {
  const fresh = freshEnv();
  after(() => rmSync(fresh.dir, { recursive: true, force: true }));
  return fresh;
}

/** `workspace create --name NAME` through the CLI: the new workspace's id. */
export function createWorkspace(
  env: Record<string, string>,
  name = 'Acme',
  options: { pumpingGuard?: 'default' } = {},
): string {
  const id = cliJson<{ id: string }>(['workspace', 'create', '--name', name], env).id;
  // Suites of other rules send to many numbers of one range in minutes (the pumping guard's default is 10); the
  // audit trail's suites keep the default, so the workspace's history is only what they do.
  if (options.pumpingGuard !== 'default') {
    cliJson(['fraud', 'settings', '--workspace', id, '--range-limit', '1000'], env);
  }
  return id;
}

/** A workspace with an AU mobile number (+61491570156) and an otp key named "backend", made with the CLI. */
export function seedWithCli(env: Record<string, string>): { ws: string; key: string; keyId: string } {
  const ws = createWorkspace(env);
  cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156'], env);
  const key = cliJson<{ id: string; key: string }>(
    ['key', 'create', '--workspace', ws, '--name', 'backend'],
    env,
  );
  return { ws, key: key.key, keyId: key.id };
}

/** The one JSON value a failed command prints on stdout under --json (docs/operations.md, "CLI errors"). */
export interface CliProblem {
  code: string;
  title: string;
  detail: string;
  exit_code: number;
  errors?: { field: string; message: string }[];
}

/**
 * A failed command: non-zero exit, exactly one line on stderr (no stack trace), and on stdout nothing (without
 * --json) or exactly one JSON value, the error: its `detail` the stderr line's reason, its `exit_code` the exit's.
 */
export function assertCleanFailure(result: CliResult, reason: RegExp): CliProblem | undefined {
  assert.notEqual(result.status, 0, `expected a failure, got ${result.status}: ${result.stdout}`);
  assert.notEqual(result.status, null);
  assert.match(result.stderr, /^[^\n]+\n$/, `stderr is not one line: ${JSON.stringify(result.stderr)}`);
  assert.doesNotMatch(result.stderr, /\bat .+:\d+:\d+/);
  assert.match(result.stderr, reason);
  if (result.stdout === '') return undefined;
  const problem = JSON.parse(result.stdout) as CliProblem;
  assert.match(problem.code, /^[a-z_]+$/);
  assert.equal(typeof problem.title, 'string');
  assert.equal(`error: ${problem.detail}\n`, result.stderr);
  assert.equal(problem.exit_code, result.status);
  return problem;
}

/** With --json, stdout is exactly one JSON value: the whole of it parses. */
export function jsonOf<T>(result: CliResult): T {
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

export type Body = Record<string, unknown>;

/** One request to a running server with a key (a JSON body when `body` is given): its status and JSON body. */
export async function callServer(
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}
