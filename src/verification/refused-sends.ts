// Sends refused before any verification was made (docs/dashboard.md "Refused sends"): the pumping guard's blocks
// and number types, and the number's failed-guess ceiling. Each refusal writes one small row, in the statement or
// transaction that decides it (the guard's refusal commits with its block), so the accepted path pays nothing.
// The verifications log shows them beside the verifications (status "refused"); retention deletes them like them.
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { preparedInsert } from '../store/prepared.js';
import type { RefusalReason } from '../vocabulary/refusal-reasons.js';
import { type LogPage, type LogRow, PAGE_SIZE, type Scope } from './log-page.js';
import type { SearchLimits } from './log-search.js';
import { type PhoneQuery, upperBoundOf } from './phone-query.js';

const insertRefused = preparedInsert('refused_sends');

export interface RefusedSend {
  workspaceId: string;
  phone: string;
  country: string;
  channel: string;
  reason: RefusalReason;
  /** The guard's block that refused it, where one did. */
  blockId: string | null;
  at: number;
}

/** One row: the refusal path's one insert (in the guard's transaction, or alone). Nothing secret is in it. */
export async function recordRefusedSend(db: Db, r: RefusedSend): Promise<void> {
  await insertRefused(db, {
    id: newId('ref'),
    workspace_id: r.workspaceId,
    phone: r.phone,
    country: r.country,
    channel: r.channel,
    reason: r.reason,
    block_id: r.blockId,
    created_at: r.at,
  });
}

const COLUMNS = ['id', 'phone', 'channel', 'created_at', 'reason', 'block_id'] as const;

/**
 * A page of the workspace's refused sends under the log's filters (the window, the channel and the phone), in the
 * log's row shape. A whole number reads its index range; a partial one is looked for among the newest
 * `newestLookedAt` refused sends of the window (a bot hammering a range makes many), and the page then says where
 * that look stopped, as the verifications' broad search does.
 */
export async function listRefused(
  db: Db,
  scope: Scope,
  channel: string,
  phone: PhoneQuery,
  limits: SearchLimits,
): Promise<LogPage> {
  const base = db
    .selectFrom('refused_sends')
    .select(COLUMNS)
    .where((eb) =>
      eb.and([
        eb('workspace_id', '=', scope.workspaceId),
        ...scope.window,
        ...(channel ? [eb('channel', '=', channel)] : []),
        ...(phone.kind === 'whole' ? [eb('phone', '=', phone.phone)] : []),
      ]),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (phone.kind !== 'partial') return pageOfRefused(await base.limit(PAGE_SIZE + 1).execute(), null);

  const newest = base.limit(limits.newestLookedAt);
  const matches = await db
    .selectFrom(newest.as('newest'))
    .selectAll()
    .where((eb) =>
      eb.or([
        ...phone.prefixes.map((prefix) =>
          eb.and([eb('phone', '>=', prefix), eb('phone', '<=', upperBoundOf(prefix))]),
        ),
        ...(phone.suffix ? [eb('phone', 'like', `%${phone.suffix}`)] : []),
      ]),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE + 1)
    .execute();
  if (matches.length > PAGE_SIZE) return pageOfRefused(matches, null);
  // Fewer than a page: where the look stopped, when it stopped short of the oldest refused send.
  const last = await base
    .offset(limits.newestLookedAt - 1)
    .limit(1)
    .executeTakeFirst();
  return pageOfRefused(matches, last ? `${last.created_at}~${last.id}` : null);
}

type Found = Pick<LogRow, 'id' | 'phone' | 'channel' | 'reason' | 'block_id'> & {
  created_at: number | string;
};

function pageOfRefused(found: Found[], stoppedAt: string | null): LogPage {
  const rows: LogRow[] = found.slice(0, PAGE_SIZE).map((r) => ({
    id: r.id,
    phone: r.phone,
    channel: r.channel,
    status: 'refused',
    created_at: Number(r.created_at),
    attempts: 0,
    max_attempts: 0,
    delivery_ok: null,
    error_code: null,
    reason: r.reason,
    block_id: r.block_id,
  }));
  const last = rows[rows.length - 1];
  if (found.length > PAGE_SIZE && last) {
    return { rows, older: `${last.created_at}~${last.id}`, incomplete: false };
  }
  return { rows, older: stoppedAt, incomplete: stoppedAt !== null };
}
