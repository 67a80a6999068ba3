// Several processes doing one start-up step at the same instant (test/helpers/at-once-process.ts): the races of
// servers started together on a new data directory, made to happen every round instead of now and then.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const PROCESS = join(import.meta.dirname, 'at-once-process.ts');

export type StepOutcome = { result: string } | { error: string };

export interface AtOnce {
  /** Each process does `step` on `target` at the same instant; their outcomes. */
  run(step: 'open-sqlite' | 'secret', target: string): Promise<StepOutcome[]>;
  stop(): void;
}

export async function startAtOnce(count: number): Promise<AtOnce> {
  const children: ChildProcess[] = Array.from({ length: count }, () =>
    fork(PROCESS, { execArgv: ['--import', 'tsx'] }),
  );
  await Promise.all(children.map((child) => once(child, 'message')));
  return {
    async run(step, target) {
      // Far enough ahead that every process is waiting for the instant when it comes.
      const at = Date.now() + 50;
      const outcomes = children.map((child) => once(child, 'message').then(([m]) => m as StepOutcome));
      for (const child of children) child.send({ step, target, at });
      return Promise.all(outcomes);
    },
    stop() {
      for (const child of children) child.kill();
    },
  };
}
