// The first line a serving process logs (issue 16, item 5): where the dashboard and the API docs are, which store
// and which delivery providers are active, and whether the server secret was generated now or read. Nothing
// secret: the store without its credentials, the secret by where it comes from.
import type { Config } from './config.js';
import type { Services } from './services.js';
import { describeDatabase } from './store/database.js';

export interface StartupFacts {
  store: string;
  delivery: string;
  secret: string;
}

/** What the line says besides the addresses, read before listening (the line is written as it listens). */
export async function startupFacts(config: Config, services: Services): Promise<StartupFacts> {
  const carriers: string[] = [];
  for (const carrier of services.carrierTypes) {
    const n = (await services.carriers.accountIdsOfType(carrier.type)).size;
    if (n > 0) carriers.push(`${carrier.type} (${n} account${n === 1 ? '' : 's'})`);
  }
  const idle = (await services.workspaces.numbersWithoutCarrier()).length;
  // Numbers without a carrier send through the development outbox: their codes reach no phone.
  const outbox =
    idle > 0
      ? `development outbox for ${idle} number${idle === 1 ? '' : 's'} without a carrier (codes reach no phone)`
      : carriers.length === 0
        ? 'development outbox (no carrier account yet: codes reach no phone)'
        : undefined;
  const secret =
    services.secret.source === 'PHONE_VERIFY_SECRET'
      ? 'from PHONE_VERIFY_SECRET'
      : `${services.secret.generated ? 'generated now' : 'read'} from ${services.secret.source}${services.secret.generated ? ' (back it up with the database)' : ''}`;
  return {
    store: describeDatabase(config.database.url),
    delivery: [...carriers, ...(outbox ? [outbox] : [])].join(', '),
    secret,
  };
}

/** The line, for the address the server listens at (PUBLIC_URL, when set, is where browsers are sent). */
export function startupLine(version: string, address: string, config: Config, facts: StartupFacts): string {
  const base = config.publicUrlSet ? config.publicUrl : address;
  return (
    `phone-verify ${version} listening at ${address}: dashboard ${base}/dashboard, API docs ${base}/docs; ` +
    `store ${facts.store}; delivery: ${facts.delivery}; secret ${facts.secret}`
  );
}
