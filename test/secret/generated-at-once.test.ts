// Several processes starting at once on a new data directory, PHONE_VERIFY_SECRET unset: one generates the server
// secret and every one reads that same secret. The file is written whole beside its place and then linked
// there (src/secret.ts), so no process can read it before the secret is in it, and no draft is left behind.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SECRET_FILE } from '../../src/secret.js';
import { type AtOnce, startAtOnce } from '../helpers/at-once.js';

const ROUNDS = 30;

describe('the generated server secret, with several processes starting at once', () => {
  let dir: string;
  let processes: AtOnce;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pv-secret-at-once-'));
    processes = await startAtOnce(3);
  });
  after(() => {
    processes.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`every one reads the one secret written, in each of ${ROUNDS} rounds on a fresh directory`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = join(dir, `round-${round}`);
      const outcomes = await processes.run('secret', dataDir);
      const written = readFileSync(join(dataDir, SECRET_FILE), 'utf8').trim();
      assert.ok(written.length >= 32, `round ${round}: the file holds no secret`);
      assert.deepEqual(
        outcomes,
        [{ result: written }, { result: written }, { result: written }],
        `round ${round}`,
      );
      assert.deepEqual(readdirSync(dataDir), [SECRET_FILE], `round ${round}: only the secret is left`);
      assert.equal(statSync(join(dataDir, SECRET_FILE)).mode & 0o777, 0o600);
    }
  });
});
