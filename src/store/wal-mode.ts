// A SQLite file is put in write-ahead-log mode by whoever opens it first. Several processes opening one new file
// at once race for that change: it writes the file's header, and SQLite refuses the loser at once with
// SQLITE_BUSY instead of calling its busy handler, because waiting could deadlock (the winner needs the loser's
// read lock gone). The loser drops its locks with the refusal, so trying again after a moment succeeds: the
// winner has finished, or the file is already in WAL mode and nothing needs writing.
import type SQLite from 'better-sqlite3';

/** How long a start keeps trying: as long as a busy lock is waited for elsewhere (busy_timeout). */
const WAL_MODE_WAIT_MS = 5000;
const RETRY_PAUSE_MS = 5;

const pause = new Int32Array(new SharedArrayBuffer(4));

export function enterWalMode(database: SQLite.Database): void {
  const deadline = Date.now() + WAL_MODE_WAIT_MS;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      // SQLITE_BUSY, or one of its extended codes (SQLITE_BUSY_RECOVERY: another process is rebuilding the log's index).
      const code = String((err as { code?: unknown }).code);
      if (!code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw err;
      // Synchronous, as every statement of better-sqlite3 is: this runs once, at open.
      Atomics.wait(pause, 0, 0, RETRY_PAUSE_MS);
    }
  }
}
