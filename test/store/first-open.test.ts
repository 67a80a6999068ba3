// Several processes starting at once on one new SQLite file all open it: the first to put the file in WAL mode
// wins, and SQLite refuses the others at once (SQLITE_BUSY, no busy handler: waiting could deadlock); they try
// again (src/store/wal-mode.ts). Before, about one round in five of three processes lost a start to
// "database is locked". Real processes, each opening the file as the service does, at the same instant.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AtOnce, startAtOnce } from '../helpers/at-once.js';
import { TEST_STORE } from '../helpers/database.js';

const SQLITE_ONLY = TEST_STORE !== 'sqlite' && 'SQLite only: PostgreSQL has no file to put in WAL mode';
const ROUNDS = 30;

describe('several processes opening one new SQLite file at once', { skip: SQLITE_ONLY }, () => {
  let dir: string;
  let processes: AtOnce;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pv-first-open-'));
    processes = await startAtOnce(3);
  });
  after(() => {
    processes.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`every one opens it, in each of ${ROUNDS} rounds on a fresh file`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const outcome of await processes.run('open-sqlite', join(dir, `round-${round}.db`))) {
        if ('error' in outcome) failures.push(`round ${round}: ${outcome.error}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
