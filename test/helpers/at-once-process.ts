// A process of its own that does one start-up step of the service on request, at an agreed instant, so that
// several such processes do it together, as servers starting at once do (test/helpers/at-once.ts drives them).
// Messages in: { step, target, at } (at: a Date.now() to wait for); out: what the step returned, or the error.
// Steps: 'open-sqlite' opens the SQLite file `target` as the service does (its WAL mode, the migrations);
// 'secret' reads or generates the server secret in the data directory `target`.
import { loadOrCreateSecret } from '../../src/secret.js';
import { attachSqlite } from '../../src/store/sqlite.js';

const STEPS: Record<string, (target: string) => Promise<string>> = {
  'open-sqlite': async (path) => {
    const file = await attachSqlite(path);
    await file.release();
    return 'ok';
  },
  secret: async (dataDir) => loadOrCreateSecret(undefined, dataDir),
};

process.on('message', async ({ step, target, at }: { step: string; target: string; at: number }) => {
  while (Date.now() < at) {
    // A spin, not a timer: the processes leave it within a millisecond of each other.
  }
  try {
    const run = STEPS[step];
    if (!run) throw new Error(`no step ${step}`);
    process.send?.({ result: await run(target) });
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    process.send?.({ error: `${code ?? 'error'}: ${message}` });
  }
});
process.send?.({ result: 'ready' });
