// Fills a workspace with finished verifications by direct inserts, through the project's own store (openStore
// applies the migrations, so the schema is the service's). For `npm run bench -- --long`: the service is then
// measured with a database the size of a long-lived installation. Like one, it has its dashboard read-models (the
// overview's roll-ups, the phone directory) up to date: brought up to date here, in large steps, rather than by the
// service's sweeper in small ones while the benchmark runs.
// Usage: node bench/prefill.mjs DATABASE_URL WORKSPACE_ID ROWS FROM_NUMBER. Prints one JSON line.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { newId } from '../dist/ids.js';
import { createServices } from '../dist/services.js';
import { openStore } from '../dist/store/database.js';

const [url, workspaceId, rowsArg, fromNumber] = process.argv.slice(2);
const rows = Number(rowsArg);
const BATCH = 500;
const DAY_MS = 86_400_000;
// Finished outcomes in plausible proportions; nothing pending, so no sweeper work is left behind.
const STATUSES = [
  ...Array(14).fill('verified'),
  ...Array(3).fill('expired'),
  'failed',
  'undelivered',
  'canceled',
];

const store = await openStore({ url });
const started = Date.now();
const now = Date.now();
let n = 0;
try {
  while (n < rows) {
    const count = Math.min(BATCH, rows - n);
    const hashes = randomBytes(32 * count);
    const values = [];
    for (let i = 0; i < count; i++, n++) {
      // Spread over the last 8 days, newest last: the overview's day and week both have data.
      const created = Math.floor(now - 8 * DAY_MS + (8 * DAY_MS * n) / rows);
      const status = STATUSES[n % STATUSES.length];
      values.push({
        id: newId('ver'),
        workspace_id: workspaceId,
        // +61 43x xxx xxx: AU mobiles, one per row (a different range from the benchmark's sends).
        phone: `+6143${String(n).padStart(7, '0')}`,
        channel: n % 5 === 0 ? 'voice' : 'sms',
        status,
        code_hash: hashes.subarray(32 * i, 32 * i + 32).toString('hex'),
        code_length: 6,
        attempts: status === 'failed' ? 5 : 1,
        max_attempts: 5,
        brand_name: 'Bench',
        metadata: '{}',
        expires_at: created + 300_000,
        verified_at: status === 'verified' ? created + 20_000 : null,
        created_at: created,
        updated_at: created,
        delivery_ok: status === 'undelivered' ? 0 : 1,
        delivery_provider: 'development',
        provider_id: null,
        from_number: fromNumber,
        error_code: status === 'undelivered' ? 'undeliverable' : null,
        error_message: null,
        seq: 1,
        country: 'AU',
      });
    }
    await store.db.insertInto('verifications').values(values).execute();
    if (n % 100_000 === 0) process.stderr.write(`prefill: ${n} rows\n`);
  }
  if (store.dialect === 'postgres') await sql`analyze verifications`.execute(store.db);
  // The read-models use none of the secret's keys.
  const services = createServices({
    store,
    publicUrl: 'http://127.0.0.1',
    secret: randomBytes(32).toString('hex'),
  });
  await services.rollups.catchUp();
  await services.phoneDirectory.catchUp();
  if (store.dialect === 'postgres') await sql`analyze phone_directory`.execute(store.db);
} finally {
  await store.close();
}
process.stdout.write(`${JSON.stringify({ rows: n, seconds: (Date.now() - started) / 1000 })}\n`);
