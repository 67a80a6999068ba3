// A fresh data directory and the environment the CLI and server share in a test: its own database (SQLite
// file or PostgreSQL database, per TEST_STORE) and the data directory for the secret.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SECRET } from './app.js';
import { databaseUrlFor, ensureDatabaseSync } from './database.js';

export function freshEnv(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'pv-cli-'));
  ensureDatabaseSync(dir);
  return { dir, env: { DATABASE_URL: databaseUrlFor(dir), DATA_DIR: dir, PHONE_VERIFY_SECRET: TEST_SECRET } };
}
