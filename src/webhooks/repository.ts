// SQL for webhook endpoints and the count of a workspace's enabled ones (workspaces.webhook_endpoints), which
// every change of an endpoint's enabled state keeps in its own transaction. Functions take the db or tx first.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from '../store/tables.js';

export type EndpointRow = WebhookEndpointsTable;
export type AttemptRow = WebhookAttemptsTable;

export async function insertEndpoint(db: Db, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** Adds `delta` to the workspace's count of enabled endpoints; the count after it (undefined: no workspace). */
export async function addToEndpointCount(
  db: Db,
  workspaceId: string,
  delta: number,
): Promise<number | undefined> {
  const row = await db
    .updateTable('workspaces')
    .set({ webhook_endpoints: sql<number>`webhook_endpoints + ${delta}` })
    .where('id', '=', workspaceId)
    .returning('webhook_endpoints')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.webhook_endpoints);
}

export function findEndpoint(db: Db, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listEndpoints(db: Db, workspaceId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Deletes the endpoint with its queued messages and its attempts; the endpoint as it was, if it existed. */
export async function deleteEndpoint(db: Db, id: string): Promise<EndpointRow | undefined> {
  const row = await db.deleteFrom('webhook_endpoints').where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) return undefined;
  await db.deleteFrom('webhook_messages').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_attempts').where('endpoint_id', '=', id).execute();
  return row;
}

/** Puts a new secret in place, the current one signing alongside it until `previousUntil`. */
export function replaceSecret(
  db: Db,
  id: string,
  secrets: { sealed: string; sealedPrevious: string; previousUntil: number },
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      sealed_secret: secrets.sealed,
      sealed_previous_secret: secrets.sealedPrevious,
      previous_until: secrets.previousUntil,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** A failed attempt: the endpoint is failing since now, unless it already was. Returns since when. */
export async function markFailing(db: Db, id: string, now: number): Promise<number | undefined> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: sql<number>`COALESCE(failing_since, ${now})` })
    .where('id', '=', id)
    .returning('failing_since')
    .executeTakeFirst();
  return row?.failing_since === null || row === undefined ? undefined : Number(row.failing_since);
}

/** A successful attempt: the endpoint is no longer failing (written only when it was). */
export async function clearFailing(db: Db, id: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

/** Disables an enabled endpoint; true for the one caller whose statement did it (it then lowers the count). */
export async function disableEndpoint(db: Db, id: string, now: number): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: now })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Enables a disabled endpoint again, its failure streak forgotten (else the next failure would disable it at once);
 * the row for the one caller whose statement did it (it then raises the count), undefined when it was enabled.
 */
export async function enableEndpoint(db: Db, id: string): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: null, failing_since: null })
    .where('id', '=', id)
    .where('disabled_at', 'is not', null)
    .returningAll()
    .executeTakeFirst();
}

/** The newest attempts to an endpoint, newest first. */
export function listAttempts(db: Db, endpointId: string, limit: number): Promise<AttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function findAttempt(db: Db, id: string): Promise<AttemptRow | undefined> {
  return db.selectFrom('webhook_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Of these workspaces, those with an enabled endpoint (the sweeper's expiry emits for them alone). */
export async function workspacesWithEndpoints(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', 'in', [...new Set(ids)])
    .where('webhook_endpoints', '>', 0)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Every endpoint's sealed secrets (current and, while kept, previous), by endpoint id (`secret reseal`). */
export async function listSealedSecrets(db: Db): Promise<{ owner: string; sealed: string }[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'sealed_secret', 'sealed_previous_secret'])
    .orderBy('id')
    .execute();
  return rows.flatMap((r) => [
    { owner: r.id, sealed: r.sealed_secret },
    ...(r.sealed_previous_secret === null ? [] : [{ owner: r.id, sealed: r.sealed_previous_secret }]),
  ]);
}

/** Swaps one sealed secret of an endpoint if it is still `from`; false when it changed meanwhile (a rotation). */
export async function replaceSealedSecret(db: Db, id: string, from: string, to: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({
      sealed_secret: sql<string>`CASE WHEN sealed_secret = ${from} THEN ${to} ELSE sealed_secret END`,
      sealed_previous_secret: sql<string>`CASE WHEN sealed_previous_secret = ${from} THEN ${to} ELSE sealed_previous_secret END`,
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('sealed_secret', '=', from), eb('sealed_previous_secret', '=', from)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
