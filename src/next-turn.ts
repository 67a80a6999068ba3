// Background work that goes in batches (the sweeper's expiry, retention) waits for this between two of them: the
// requests that arrived meanwhile run first. On SQLite every statement runs on the serving thread, and awaiting
// one resolves without a turn of the event loop: without this, all the batches of a step were one long block.

/** Resolves after the event loop's next turn (its I/O callbacks: requests waiting to be read or answered). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
