// Work that several processes share through a table (code delivery jobs, webhook messages): each poll first reads
// whether anything is due (an idle poll takes no write lock), then claims what is due in batches, as much as this
// process has room for, under one lease token per batch, and works each claimed item in the background of the
// process. An item is claimed by one statement, so two processes never work the same one; drain() waits for the
// work under way (a closing process).
import { newToken } from './ids.js';

export interface ClaimedWorkDeps<T> {
  /** Whether anything is due and free: a read. */
  anyDue(): Promise<boolean>;
  /** Claims up to `limit` due items for `token`. */
  claim(token: string, limit: number): Promise<T[]>;
  /** Works one claimed item (its failures are the caller's to record; a throw is only reported). */
  attempt(item: T, token: string): Promise<unknown>;
  /** Items claimed at once; in flight at most, per process. */
  batch: number;
  maxInFlight: number;
  warn(message: string, err?: unknown): void;
  /** What the warnings call the work: "delivery attempt", "webhook attempt". */
  what: string;
}

export function createClaimedWork<T>(deps: ClaimedWorkDeps<T>) {
  const inFlight = new Set<Promise<unknown>>();

  /** Runs work in the background of the process; drain() waits for it. Never rejects (undefined instead). */
  function track<R>(work: Promise<R>): Promise<R | undefined> {
    const tracked: Promise<R | undefined> = work
      .catch((err: unknown) => {
        deps.warn(`a ${deps.what} could not be completed; it is retried later`, err);
        return undefined;
      })
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return tracked;
  }

  /**
   * Claims the due items nobody holds (as many as this process has room for) and works them; how many it
   * claimed. With wait: false it returns once they are claimed, their work going on in the background.
   */
  async function runDue(options: { wait?: boolean } = {}): Promise<number> {
    if (!(await deps.anyDue())) return 0;
    let claimed = 0;
    for (;;) {
      const room = Math.min(deps.batch, deps.maxInFlight - inFlight.size);
      if (room <= 0) return claimed;
      const token = newToken();
      const batch = await deps.claim(token, room);
      claimed += batch.length;
      const attempts = batch.map((item) => track(deps.attempt(item, token)));
      if (options.wait !== false) await Promise.all(attempts);
      if (batch.length < room) return claimed;
    }
  }

  /** Waits for every piece of work under way in this process. */
  async function drain(): Promise<void> {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  }

  /** Polls every `intervalMs`; the returned stop waits for the work under way. */
  function startPolling(intervalMs: number): () => Promise<void> {
    let polling: Promise<unknown> | undefined;
    const timer = setInterval(() => {
      if (polling) return;
      polling = runDue({ wait: false })
        .catch((err: unknown) => deps.warn(`polling for due work (${deps.what}) failed; will retry`, err))
        .finally(() => {
          polling = undefined;
        });
    }, intervalMs);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await polling;
      await drain();
    };
  }

  return { track, runDue, drain, startPolling };
}
