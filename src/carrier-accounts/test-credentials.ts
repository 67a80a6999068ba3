// Testing an account's credentials: the account of this workspace (any other id is not found), its credentials
// opened, the carrier's probe run (composed in by services.ts), and the test written to the audit trail with its
// outcome. The probe's words are the only thing shown; no credential reaches the answer or the entry.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp } from '../clock.js';
import { AppError } from '../errors.js';
import type { KeyRing } from '../secret.js';
import type { Db } from '../store/database.js';
import type { CredentialProbe, CredentialTestView } from './credential-test.js';
import { CredentialsUnreadableError, decryptCredentials } from './credentials.js';
import * as repo from './repository.js';

/** Ids are short letters, digits and underscores; anything else (NUL, a pasted blob) names no account. */
const ID_SHAPE = /^[A-Za-z0-9_]{1,64}$/;

export async function runCredentialTest(
  deps: { db: Db; clock: Clock; keys: KeyRing; audit: AuditRecorder; probe?: CredentialProbe },
  workspaceId: string,
  id: string,
  by: Actor,
): Promise<CredentialTestView> {
  const { db, clock, keys, audit } = deps;
  const notFound = () =>
    new AppError(
      'not_found',
      ID_SHAPE.test(id)
        ? `No carrier account ${id} in this workspace.`
        : 'No such carrier account in this workspace.',
    );
  if (!ID_SHAPE.test(id) || !ID_SHAPE.test(workspaceId)) throw notFound();
  const row = await repo.findAccount(db, id);
  if (!row || row.workspace_id !== workspaceId) throw notFound();
  let credentials: Record<string, unknown>;
  try {
    credentials = decryptCredentials(keys, row.id, row.credentials);
  } catch (err) {
    if (!(err instanceof CredentialsUnreadableError)) throw err;
    throw new AppError(
      'conflict',
      `The credentials of carrier account ${id} cannot be read with this server's secret: rotate them, then test again.`,
    );
  }
  const result = await deps.probe?.({
    id: row.id,
    workspaceId,
    type: row.type,
    baseUrl: row.base_url ?? undefined,
    credentials,
  });
  if (!result) throw new AppError('conflict', `A ${row.type} account offers no credential test.`);
  const at = clock.now();
  await db.transaction().execute((tx) =>
    audit.record(tx, by, {
      workspaceId,
      action: 'carrier.tested',
      target: id,
      details: { type: row.type, outcome: result.outcome },
    }),
  );
  return { id, type: row.type, outcome: result.outcome, detail: result.detail, tested_at: toTimestamp(at) };
}
