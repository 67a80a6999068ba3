// Rows to API bodies. The code hash never leaves this module's input.
import { toTimestamp } from '../clock.js';
import type { VerificationRow } from './repository.js';
import type { CheckResult, Verification } from './schemas.js';

export function presentVerification(row: VerificationRow): Verification {
  return {
    id: row.id,
    status: row.status,
    channel: row.channel,
    phone: row.phone,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    expires_at: toTimestamp(row.expires_at),
    verified_at: row.verified_at === null ? null : toTimestamp(row.verified_at),
    created_at: toTimestamp(row.created_at),
    delivery: {
      ok: row.delivery_ok === 1,
      channel: row.channel,
      provider_id: row.provider_id,
      from_number: row.from_number,
      error_code: row.error_code,
      error_message: row.error_message,
    },
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    mode: row.mode,
  };
}

/** The reduced body of a check: success, a wrong code, or a verification that no longer takes codes. */
export function presentCheck(row: VerificationRow): CheckResult {
  if (row.status === 'verified' && row.verified_at !== null) {
    return { id: row.id, status: 'verified', verified: true, verified_at: toTimestamp(row.verified_at) };
  }
  return {
    id: row.id,
    status: row.status,
    verified: false,
    attempts: row.attempts,
    attempts_remaining: row.status === 'pending' ? Math.max(0, row.max_attempts - row.attempts) : 0,
  };
}
