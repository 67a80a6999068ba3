// An SMPP account removed with the CLI while two serving processes hold a bound session of it each: both
// processes let their session go (their sweepers see the account gone), so no process keeps binding an account
// that no longer exists. Real processes and the SMSC simulator process on loopback.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startSmsc } from '../fakes/smsc-process.js';
import { cliSuiteEnv, createWorkspace } from '../helpers/cli-setup.js';
import { cliJson, type ServerProcess, startServer } from '../helpers/process.js';

const { env } = cliSuiteEnv();
const ACCOUNT = { systemId: 'acme', password: 'acme-smpp-pw-1' };

test('carrier remove: every serving process unbinds its session of the account', async () => {
  const smsc = await startSmsc([ACCOUNT]);
  const servers: ServerProcess[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await smsc.close();
  });
  const ws = createWorkspace(env);
  const carrier = cliJson<{ id: string }>(
    [
      'carrier',
      'add',
      '--workspace',
      ws,
      '--type',
      'smpp',
      '--host',
      '127.0.0.1',
      '--port',
      String(smsc.port),
    ].concat(['--system-id', ACCOUNT.systemId, '--password', ACCOUNT.password]),
    env,
  );
  cliJson(['number', 'add', '--workspace', ws, '--number', '+61491570156', '--carrier', carrier.id], env);
  const { key } = cliJson<{ key: string }>(['key', 'create', '--workspace', ws, '--name', 'backend'], env);
  // A short sweep interval, so the processes notice the removal soon.
  const serverEnv = { ...env, SWEEP_INTERVAL_MS: '200' };
  servers.push(...(await Promise.all([startServer(serverEnv), startServer(serverEnv)])));

  // One send through each process opens a session in each.
  for (const [i, server] of servers.entries()) {
    const res = await fetch(`${server.url}/v1/otp/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: `+6141234510${i}`, channel: 'sms' }),
    });
    assert.equal(((await res.json()) as { delivery: { ok: boolean } }).delivery.ok, true);
  }
  const sessions = new Set((await smsc.state()).submits.map((s) => s.sessionId));
  assert.equal(sessions.size, 2, 'each process bound a session of its own');

  cliJson(['number', 'set-carrier', '--workspace', ws, '--number', '+61491570156', '--carrier', 'none'], env);
  cliJson(['carrier', 'remove', carrier.id], env);
  await smsc.waitFor('both sessions unbound', (state) =>
    [...sessions].every((id) => state.unbinds.some((u) => u.sessionId === id)),
  );
});
