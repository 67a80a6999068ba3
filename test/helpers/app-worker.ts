// A second process serving createTestApp({ dir }) over HTTP on the same database as the test's own app: races
// between processes are real there (two SQLite connections to one file, or two PostgreSQL pools).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

export interface AppWorker {
  url: string;
  stop(): Promise<void>;
}

const helper = (name: string) => pathToFileURL(join(import.meta.dirname, name)).href;

/** Starts the worker; `clockAt` pins its clock (epoch ms), so it shares a fake-clocked test app's windows. */
export async function startAppWorker(dir: string, options: { clockAt?: number } = {}): Promise<AppWorker> {
  const code = `
    const { createTestApp } = await import(${JSON.stringify(helper('app.ts'))});
    const { fakeClock } = await import(${JSON.stringify(helper('clock.ts'))});
    const at = ${JSON.stringify(options.clockAt ?? null)};
    const t = await createTestApp({ dir: ${JSON.stringify(dir)}, clock: at === null ? undefined : fakeClock(at) });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    process.on('SIGTERM', () => { t.close().finally(() => process.exit(0)); });
    console.log(JSON.stringify({ port: t.app.server.address().port }));
  `;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', code],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const line = await Promise.race([
    once(lines, 'line').then(([l]) => String(l)),
    once(child, 'exit').then(([status]) => {
      throw new Error(`worker exited with ${status}: ${stderr}`);
    }),
  ]);
  const { port } = JSON.parse(line) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
