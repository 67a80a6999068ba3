// Workspaces whose numbers send through a carrier account pointed at a local double (test/fakes): made through
// the services (in-process tests) or through the CLI (tests of real processes).
import type { FastifyInstance } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import type { Services } from '../../src/services.js';
import { type Client, client } from './app.js';
import { TWILIO } from './carrier-fixtures.js';
import { createWorkspace } from './cli-setup.js';
import { cliJson } from './process.js';

export const CARRIER_SENDER = '+61491570156';

/** A new workspace whose one number sends through a new Twilio account at `baseUrl`, and an API client. */
export async function twilioWorkspace(
  services: Services,
  app: FastifyInstance,
  baseUrl: string,
  name = 'Acme',
): Promise<{ workspaceId: string; accountId: string; api: Client }> {
  const ws = await services.workspaces.createWorkspace({ name }, OPERATOR);
  // Suites of other rules send to many numbers of one range in minutes (the pumping guard's default is 10).
  await services.fraud.setSettings(ws.id, { range_limit: 1000 }, OPERATOR);
  const account = await services.carriers.addAccount(
    {
      workspaceId: ws.id,
      type: 'twilio',
      credentials: TWILIO,
      baseUrl,
    },
    OPERATOR,
  );
  await services.workspaces.addNumber(
    { workspaceId: ws.id, number: CARRIER_SENDER, carrierId: account.id },
    OPERATOR,
  );
  const key = await services.keys.createKey({ workspaceId: ws.id, name: 'backend' }, OPERATOR);
  return { workspaceId: ws.id, accountId: account.id, api: client(app, key.key) };
}

/** The same through the CLI: `carrier add`, `number add --carrier`, `key create`. */
export function twilioWorkspaceWithCli(
  env: Record<string, string>,
  baseUrl: string,
  name = 'Acme',
): { workspaceId: string; accountId: string; key: string } {
  const workspaceId = createWorkspace(env, name);
  const account = cliJson<{ id: string }>(
    [
      'carrier',
      'add',
      '--workspace',
      workspaceId,
      '--type',
      'twilio',
      '--account-sid',
      TWILIO.accountSid,
    ].concat(['--auth-token', TWILIO.authToken, '--base-url', baseUrl]),
    env,
  );
  cliJson(
    ['number', 'add', '--workspace', workspaceId, '--number', CARRIER_SENDER, '--carrier', account.id],
    env,
  );
  const { key } = cliJson<{ key: string }>(
    ['key', 'create', '--workspace', workspaceId, '--name', 'backend'],
    env,
  );
  return { workspaceId, accountId: account.id, key };
}
