// What a listing of the audit trail may ask for, checked in one place for the dashboard's query string and the
// CLI's options: an action of the list, an actor ('cli', 'system' or an account id), a cursor and a page size.
// Anything else (another type, a repeated parameter, NUL, odd Unicode, a huge value) is a 400 naming the field.
import { invalidField } from '../errors.js';
import { AUDIT_ACTIONS, type AuditAction } from '../vocabulary/audit-actions.js';

export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_LIMIT_MAX = 500;

export interface AuditFilter {
  action?: AuditAction;
  /** 'cli', 'system' or a dashboard account's id. */
  actor?: string;
  /** The cursor of an older page: entries before this `seq`. */
  before?: number;
  limit: number;
}

const ACCOUNT_ID = /^usr_[0-9A-Za-z]{24}$/;
// A stamp (clock.ts monotonicStamps) is milliseconds x 1000: 16 digits until the year 2286.
const CURSOR = /^\d{1,16}$/;

/** One value of a query or an option: absent or '' is "not given"; an array (a repeated parameter) is refused. */
function text(field: string, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidField(field, 'must be given once, as text');
  return value;
}

export function parseAuditFilter(input: {
  action?: unknown;
  actor?: unknown;
  before?: unknown;
  limit?: unknown;
}): AuditFilter {
  const action = text('action', input.action);
  if (action !== undefined && !AUDIT_ACTIONS.includes(action as AuditAction)) {
    throw invalidField('action', `must be one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  const actor = text('actor', input.actor);
  if (actor !== undefined && actor !== 'cli' && actor !== 'system' && !ACCOUNT_ID.test(actor)) {
    throw invalidField('actor', "must be 'cli', 'system' or an account id (usr_…)");
  }
  const before = text('before', input.before);
  if (before !== undefined && !CURSOR.test(before)) throw invalidField('before', 'must be a page cursor');
  const limit = input.limit ?? AUDIT_PAGE_SIZE;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_LIMIT_MAX) {
    throw invalidField('limit', `must be a whole number from 1 to ${AUDIT_LIMIT_MAX}`);
  }
  return {
    action: action as AuditAction | undefined,
    actor,
    before: before === undefined ? undefined : Number(before),
    limit,
  };
}
