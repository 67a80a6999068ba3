// Background work of a serving process (a sweeper's step) must let requests through while it runs. On SQLite
// every statement runs on the serving thread, and an awaited statement resolves without a turn of the event loop,
// so a step with no turn between its batches holds every request until its end. On PostgreSQL a statement is a
// round trip, during which the process serves requests anyway: there, which of the two ends first is a race, and
// only that both complete is checked.
import assert from 'node:assert/strict';
import type { Client } from './app.js';
import { TEST_STORE } from './database.js';

/**
 * Starts `work`, pings meanwhile, and checks the ping was answered (on SQLite: before the work ended); the work's
 * result.
 */
export async function answeredDuring<T>(api: Client, work: () => Promise<T>): Promise<T> {
  let ended = false;
  const running = work().then((result) => {
    ended = true;
    return result;
  });
  const ping = await api.ping();
  assert.equal(ping.statusCode, 200);
  if (TEST_STORE === 'sqlite')
    assert.equal(ended, false, 'the ping was answered while the work was still running');
  return running;
}
