#!/usr/bin/env node
// Prints the service's OpenAPI document (what GET /openapi.json answers) as JSON on stdout, without a server or a
// database of anyone's: the app is built from dist/ (run `npm run build:service` first) over a throwaway SQLite
// store, asked for app.swagger(), and closed. The Node client's build generates its types from this output
// (clients/node), so they are always the document of the code beside them.
// Usage: node scripts/openapi.mjs [--public-url URL] > openapi.json
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { 'public-url': { type: 'string', default: 'http://localhost:3000' } },
});
const dist = new URL('../dist/', import.meta.url);
const { buildApp } = await import(new URL('app.js', dist).href);
const { createServices } = await import(new URL('services.js', dist).href);
const { openStore } = await import(new URL('store/database.js', dist).href);

const dir = mkdtempSync(join(tmpdir(), 'pv-openapi-'));
try {
  const store = await openStore({ url: `sqlite:${join(dir, 'openapi.db')}`, dataDir: dir });
  try {
    // A fixed secret: nothing is sealed or signed here, and the document does not depend on it.
    const services = createServices({
      store,
      secret: 'openapi-document-only-'.repeat(3),
      publicUrl: values['public-url'],
    });
    const app = await buildApp({ services });
    await app.ready();
    process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    await app.close();
    await services.dispatcher.drain();
    await services.webhookDelivery.drain();
    await services.carrierRuntime.close();
  } finally {
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
