#!/usr/bin/env node
// Prints the service's OpenAPI document (JSON) on stdout, for generators and for clients/node's build:
// `node scripts/openapi.mjs > openapi.json`. It builds the app from dist/ (run `npm run build` first) over an
// in-memory SQLite database in a throwaway data directory, listens nowhere, and prints `app.swagger()`.
// PUBLIC_URL sets the document's server and the problem `type` URLs (default: http://127.0.0.1:3000, the address
// the service listens on by default).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url);
const { buildApp } = await import(new URL('app.js', dist).href);
const { createServices } = await import(new URL('services.js', dist).href);
const { openStore } = await import(new URL('store/database.js', dist).href);

const publicUrl = (process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
// The data directory holds the secret the services generate for themselves: nothing is sealed with it.
const dir = mkdtempSync(join(tmpdir(), 'pv-openapi-'));
try {
  const store = await openStore({ url: 'sqlite::memory:', dataDir: dir });
  const services = createServices({ store, publicUrl });
  try {
    const app = await buildApp({ services });
    await app.ready();
    process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    await app.close();
  } finally {
    await services.dispatcher.drain();
    await services.webhookDelivery.drain();
    await services.carrierRuntime.close();
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
