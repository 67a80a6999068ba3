// The per-process state of the carriers that keep some (sessions, say), built once by the composition root:
// each carrier's runtime by type, and the generic hooks the carrier-account service, the sweeper and the
// serving process call as accounts go and the process ends.
import type { AnyCarrier, CarrierRuntime, RuntimeContext } from './descriptor.js';

export interface CarrierRuntimes {
  /** The runtime of a carrier type, where it has one. */
  of(type: string): CarrierRuntime | undefined;
  /** Lets go of what any carrier holds for an account that was removed. */
  release(accountId: string): Promise<void>;
  /**
   * Lets go of what is held for accounts removed through another process: `existing` gives the ids of the
   * accounts of a type that still exist. How many were let go.
   */
  releaseRemoved(existing: (type: string) => Promise<ReadonlySet<string>>): Promise<number>;
  /** Ends every runtime (the serving process's end). */
  close(): Promise<void>;
}

export function createCarrierRuntimes(
  carriers: readonly AnyCarrier[],
  context: Omit<RuntimeContext, 'report'> & {
    /** Applies a report that arrived by a runtime's own means; `carrier` is the label failures carry. */
    report(input: Parameters<RuntimeContext['report']>[0] & { carrier: string }): Promise<unknown>;
  },
): CarrierRuntimes {
  const runtimes = new Map<string, CarrierRuntime>();
  for (const carrier of carriers) {
    if (!carrier.createRuntime) continue;
    const runtime: CarrierRuntime = carrier.createRuntime({
      timeoutMs: context.timeoutMs,
      log: context.log,
      report: (input) => context.report({ ...input, carrier: carrier.label }),
    });
    runtimes.set(carrier.type, runtime);
  }
  return {
    of: (type) => runtimes.get(type),
    async release(accountId) {
      await Promise.all([...runtimes.values()].map((r) => r.release(accountId)));
    },
    async releaseRemoved(existing) {
      let released = 0;
      for (const [type, runtime] of runtimes) released += await runtime.releaseAllBut(await existing(type));
      return released;
    },
    async close() {
      await Promise.all([...runtimes.values()].map((r) => r.close()));
    },
  };
}
