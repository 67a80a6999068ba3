// The conversion signal per country across processes (docs/api.md "Per country"): three real servers share one
// database (a SQLite file, or a PostgreSQL database). Codes sent through them to AU go unchecked; the judgement
// (the sweeper's, run here by two services of the test's own on that database, on a clock past the codes' expiry;
// on PostgreSQL each has its own connection, on SQLite one process's stores share its one connection) writes exactly one block of AU; then 30 sends to 30 AU numbers fired at once over
// the three processes are each refused (403 low_conversion, retry_after), the block counts all 30 and each left one
// row for the log, while an allowed number and another country still go through.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createServices, type Services } from '../../src/services.js';
import { openStore, type Store } from '../../src/store/database.js';
import { TEST_PUBLIC_URL, TEST_SECRET } from '../helpers/app.js';
import { freshEnv } from '../helpers/cli-env.js';
import { createWorkspace } from '../helpers/cli-setup.js';
import { fakeClock } from '../helpers/clock.js';
import { dropDatabase } from '../helpers/database.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';

const PROCESSES = 3;

async function send(base: string, key: string, phone: string) {
  const res = await fetch(`${base}/v1/otp/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ phone, channel: 'sms', ttl_seconds: 60 }),
  });
  const body = (await res.json()) as {
    code?: string;
    reason?: string;
    retry_after?: number;
    detail?: string;
  };
  return { status: res.status, body };
}

describe('pumping guard across processes: a country blocked for low conversion', () => {
  const { dir, env } = freshEnv();
  let servers: ServerProcess[] = [];
  let key = '';
  let ws = '';
  const stores: Store[] = [];
  const judges: Services[] = [];

  before(async () => {
    ws = createWorkspace(env, 'Acme');
    cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156'], env);
    key = cliJson<{ key: string }>(['key', 'create', '--workspace', ws, '--name', 'backend'], env).key;
    // Judged over 10 codes, blocked under 10% verified; the range signal off, so only the country's is on trial.
    cliJson(
      [
        'fraud',
        'settings',
        '--workspace',
        ws,
        '--country-conversion-sends',
        '10',
        '--country-conversion-percent',
        '10',
        '--conversion-percent',
        '0',
      ],
      env,
    );
    cliJson(['fraud', 'allow', '--workspace', ws, '--prefix', '+61499999999'], env);
    const started = await Promise.allSettled(Array.from({ length: PROCESSES }, () => startServer(env)));
    servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    assert.equal(servers.length, PROCESSES, 'every server started');
    // Two judges of the test's own, each with its own store on the same database, on a clock ten minutes ahead:
    // the codes sent now have expired by then.
    const clock = fakeClock(Date.now() + 10 * 60_000);
    for (let i = 0; i < 2; i++) {
      const store = await openStore({ url: env.DATABASE_URL as string, dataDir: dir, poolMax: 2 });
      stores.push(store);
      judges.push(createServices({ store, secret: TEST_SECRET, clock, publicUrl: TEST_PUBLIC_URL }));
    }
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const s of stores) await s.close();
    await dropDatabase(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  const server = (i: number) => (servers[i % PROCESSES] as ServerProcess).url;

  test('two judges at once write one block of AU from the unchecked codes sent through three processes', async () => {
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) => send(server(i), key, `+6141${String(3000 + i)}${'000'}`)),
    );
    assert.deepEqual(
      sent.map((r) => r.status),
      Array(10).fill(201),
    );
    await (judges[0] as Services).verifications.expireDue();
    const judged = await Promise.all(judges.map((j) => j.fraud.judgeConversion()));
    assert.deepEqual(judged.flat(), [{ workspaceId: ws, country: 'AU' }], 'one judge wrote the block');
    // Read through the test's own service: a CLI run here would block this process's event loop while its SQLite
    // connection may still hold the write lock of the judges' commit.
    const blocks = await (judges[0] as Services).fraud.listBlocks(ws);
    assert.deepEqual(
      blocks.map((b) => [b.country, b.active]),
      [['AU', true]],
    );
  });

  test('30 concurrent sends to AU over three processes are all refused and counted; allowed and NZ numbers pass', async () => {
    const phones = Array.from(
      { length: 30 },
      (_, i) => `+6141${String(4000 + i)}${String(i).padStart(3, '0')}`,
    );
    const answers = await Promise.all(phones.map((phone, i) => send(server(i), key, phone)));
    for (const a of answers) {
      assert.equal(a.status, 403, JSON.stringify(a.body));
      assert.equal(a.body.code, 'destination_blocked');
      assert.equal(a.body.reason, 'low_conversion');
      assert.ok(typeof a.body.retry_after === 'number' && a.body.retry_after > 0, JSON.stringify(a.body));
      assert.match(a.body.detail ?? '', /numbers of AU are blocked/);
    }
    const [block] = cliJson<{ country: string; refused: number }[]>(
      ['fraud', 'blocks', '--workspace', ws],
      env,
    );
    assert.equal(block?.refused, 30, 'every refusal counted once, across the processes');
    const logged = await (stores[0] as Store).db
      .selectFrom('refused_sends')
      .select(['phone', 'reason'])
      .where('workspace_id', '=', ws)
      .execute();
    assert.equal(logged.length, 30);
    assert.equal(new Set(logged.map((r) => r.phone)).size, 30);
    assert.ok(logged.every((r) => r.reason === 'low_conversion'));

    assert.equal((await send(server(0), key, '+61499999999')).status, 201, 'the allow list wins');
    assert.equal((await send(server(1), key, '+64211234567')).status, 201, 'another country is not blocked');
  });
});
