// The pumping guard's velocity rule across processes (docs/api.md "Pumping guard", "Atomic"): three real servers
// (`node bin/phone-verify.js serve`) share one database (a SQLite file, or a PostgreSQL database), and 30 sends to
// 30 distinct numbers of one range are fired at once, spread round-robin over them. Exactly 10 are accepted, the
// other 20 answer 403 destination_blocked (range_velocity, retry_after), the range has exactly one block, which
// counts the 20 refusals, and each refusal left one row for the verifications log. Several rounds, each on a range
// of its own, because a race need not show every time.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { openStore, type Store } from '../../src/store/database.js';
import { freshEnv } from '../helpers/cli-env.js';
import { createWorkspace } from '../helpers/cli-setup.js';
import { dropDatabase } from '../helpers/database.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';

const PROCESSES = 3;
const ROUNDS = 3;

interface Answer {
  status: number;
  body: { code?: string; reason?: string; retry_after?: number; detail?: string };
  retryAfter: string | null;
}

async function send(base: string, key: string, phone: string): Promise<Answer> {
  const res = await fetch(`${base}/v1/otp/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ phone, channel: 'sms' }),
  });
  return {
    status: res.status,
    body: (await res.json()) as Answer['body'],
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('pumping guard across processes: three servers, one database', () => {
  const { dir, env } = freshEnv();
  let servers: ServerProcess[] = [];
  let key = '';
  let ws = '';
  let store: Store | undefined;

  before(async () => {
    // The guard's defaults: 10 distinct numbers of a range in 10 minutes, then a block of an hour.
    ws = createWorkspace(env, 'Acme', { pumpingGuard: 'default' });
    cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156'], env);
    key = cliJson<{ key: string }>(['key', 'create', '--workspace', ws, '--name', 'backend'], env).key;
    const started = await Promise.allSettled(Array.from({ length: PROCESSES }, () => startServer(env)));
    servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    assert.equal(servers.length, PROCESSES, 'every server started');
    store = await openStore({ url: env.DATABASE_URL as string, dataDir: dir, poolMax: 1 });
  });
  after(async () => {
    await store?.close();
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  for (let round = 0; round < ROUNDS; round++) {
    test(`round ${round + 1}: 30 concurrent sends to 30 numbers of one range over 3 processes let exactly 10 through`, async () => {
      const range = `+6141277${round}`;
      const phones = Array.from({ length: 30 }, (_, i) => `${range}${String(i * 31).padStart(3, '0')}`);
      const answers = await Promise.all(
        phones.map((phone, i) => send((servers[i % PROCESSES] as ServerProcess).url, key, phone)),
      );
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 201).length, 10, statuses.join(','));
      const refused = answers.filter((a) => a.status === 403);
      assert.equal(refused.length, 20, statuses.join(','));
      for (const a of refused) {
        assert.equal(a.body.code, 'destination_blocked');
        assert.equal(a.body.reason, 'range_velocity');
        assert.ok(
          typeof a.body.retry_after === 'number' && a.body.retry_after > 0 && a.body.retry_after <= 3600,
          JSON.stringify(a.body),
        );
        assert.equal(a.retryAfter, String(a.body.retry_after));
        assert.ok(a.body.detail?.includes(range), a.body.detail);
      }

      const blocks = cliJson<{ range: string; reason: string; refused: number; active: boolean }[]>(
        ['fraud', 'blocks', '--workspace', ws],
        env,
      ).filter((b) => b.range === range);
      assert.equal(blocks.length, 1, 'the range is blocked exactly once');
      assert.equal(blocks[0]?.reason, 'range_velocity');
      assert.equal(blocks[0]?.refused, 20);
      assert.equal(blocks[0]?.active, true);

      assert.ok(store);
      const made = await store.db
        .selectFrom('verifications')
        .select('phone')
        .where('workspace_id', '=', ws)
        .where('phone', 'in', phones)
        .execute();
      assert.equal(made.length, 10, 'only the accepted sends made a verification');
      const logged = await store.db
        .selectFrom('refused_sends')
        .select(['phone', 'reason'])
        .where('workspace_id', '=', ws)
        .where('phone', 'in', phones)
        .execute();
      assert.equal(logged.length, 20, 'each refusal left one row for the log');
      assert.deepEqual(
        new Set([...made.map((r) => r.phone), ...logged.map((r) => r.phone)]).size,
        30,
        'every number is either sent to or refused',
      );
    });
  }
});
