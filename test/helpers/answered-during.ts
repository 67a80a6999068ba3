// Background work of a serving process (a sweeper's step) must let requests through while it runs: on SQLite
// every statement runs on the serving thread, and an awaited statement resolves without a turn of the event loop,
// so a step with no turn between its batches holds every request until its end.
import assert from 'node:assert/strict';
import type { Client } from './app.js';

/** Starts `work`, pings meanwhile, and checks the ping was answered before the work ended; the work's result. */
export async function answeredDuring<T>(api: Client, work: () => Promise<T>): Promise<T> {
  let ended = false;
  const running = work().then((result) => {
    ended = true;
    return result;
  });
  const ping = await api.ping();
  assert.equal(ping.statusCode, 200);
  assert.equal(ended, false, 'the ping was answered while the work was still running');
  return running;
}
