// Carriers issue, item 1: with NODE_ENV=production, start-up warns loudly when a workspace number has no
// carrier account (its codes go to the development outbox and reach no phone); without it, no such warning.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { cliSuiteEnv, seedWithCli } from '../helpers/cli-setup.js';
import { type ServerProcess, startServer } from '../helpers/process.js';

const servers: ServerProcess[] = [];
after(async () => {
  for (const server of servers) await server.stop();
});

async function startupLog(env: Record<string, string>): Promise<string> {
  const server = await startServer({ ...env, LOG_LEVEL: 'info' });
  servers.push(server);
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  return server.stderr();
}

test('NODE_ENV=production with a carrier-less number: start-up logs an error naming the number', async () => {
  const { env } = cliSuiteEnv();
  seedWithCli(env); // one AU mobile, no carrier
  const log = await startupLog({ ...env, NODE_ENV: 'production' });
  const line = log.split('\n').find((l) => l.includes('NODE_ENV=production'));
  assert.ok(line, `a warning line in: ${log.slice(0, 500)}`);
  const entry = JSON.parse(line) as { level: number; msg: string; numbers: string[] };
  assert.equal(entry.level, 50, 'logged at error level');
  assert.match(entry.msg, /reach NO phone/);
  assert.deepEqual(entry.numbers, ['+61491570156']);
});

test('without NODE_ENV=production there is no such warning', async () => {
  const { env } = cliSuiteEnv();
  seedWithCli(env);
  const log = await startupLog({ ...env, NODE_ENV: '' });
  assert.equal(log.includes('NODE_ENV=production'), false);
});
