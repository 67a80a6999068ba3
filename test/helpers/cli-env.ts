// A fresh data directory and the environment the CLI and server share in a test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SECRET } from './app.js';

export function freshEnv(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'pv-cli-'));
  return { dir, env: { DATABASE_URL: `sqlite:${join(dir, 'pv.db')}`, PHONE_VERIFY_SECRET: TEST_SECRET } };
}
