// "The user says the code never arrived": what support should check, read from one verification's record and
// timeline. Data only: the dashboard's detail page words and renders each finding.
import type { VerificationRecord } from './service.js';

type Verification = VerificationRecord['verification'];

export type Finding =
  /** The code arrived: it was entered, on this attempt. */
  | { kind: 'verified'; at: number; attempts: number }
  /** Every hand-over attempt failed transiently until the code's time ran out: nothing was sent. */
  | { kind: 'carrier_unreachable'; attempts: string }
  /** Still being handed over (retried after a transient failure, or under way) until the code expires. */
  | { kind: 'not_handed_over'; retrying: boolean; expiresAt: number }
  /** The carrier refused the number at hand-over: nothing was sent. */
  | { kind: 'refused'; errorCode: string | null; phone: string; channel: string }
  /** The carrier took the message or call, then reported it did not reach the phone. */
  | { kind: 'undelivered'; errorCode: string; channel: string }
  /** A newer code went to the same number, and this one stopped working then. */
  | { kind: 'superseded'; newerId: string }
  | { kind: 'canceled' }
  /** Expired after lifetimeMs, with this many wrong attempts (and no newer code to explain it). */
  | { kind: 'expired'; lifetimeMs: number; attempts: number }
  | { kind: 'failed'; maxAttempts: number }
  /** Handed over, no failure reported, still valid for validForMs. */
  | {
      kind: 'no_failure_reported';
      phone: string;
      country: string | null;
      channel: string;
      fromNumber: string;
      validForMs: number;
    }
  /** Nothing in the record explains it. */
  | { kind: 'unexplained' }
  /** Sent with a test key: by design it went to the test outbox, never to a phone. */
  | { kind: 'test_mode' };

/** The findings, most telling first; never empty. */
export function diagnoseDelivery(record: VerificationRecord, now: number): Finding[] {
  const v: Verification = record.verification;
  const find = (kind: string) => record.events.find((e) => e.kind === kind);
  if (v.status === 'verified' && v.verified_at !== null) {
    return [{ kind: 'verified', at: v.verified_at, attempts: v.attempts }];
  }
  // A test code never reaches a phone: that is the first thing to say of it, whatever else the record holds.
  const findings: Finding[] = v.mode === 'test' ? [{ kind: 'test_mode' }] : [];
  const gaveUp = find('gave_up');
  if (gaveUp) {
    findings.push({ kind: 'carrier_unreachable', attempts: String(gaveUp.detail.attempts) });
  } else if (v.status === 'pending' && v.delivery_ok === null) {
    findings.push({ kind: 'not_handed_over', retrying: !!find('retry_scheduled'), expiresAt: v.expires_at });
  } else if (v.delivery_ok === 0) {
    findings.push({ kind: 'refused', errorCode: v.error_code, phone: v.phone, channel: v.channel });
  } else if (v.error_code) {
    findings.push({ kind: 'undelivered', errorCode: v.error_code, channel: v.channel });
  }
  const newer = find('superseded')?.detail.by ?? find('expired')?.detail.superseded_by;
  if (newer) findings.push({ kind: 'superseded', newerId: String(newer) });
  if (find('canceled')) findings.push({ kind: 'canceled' });
  if (v.status === 'expired' && !newer) {
    findings.push({ kind: 'expired', lifetimeMs: v.expires_at - v.created_at, attempts: v.attempts });
  }
  if (v.status === 'failed') findings.push({ kind: 'failed', maxAttempts: v.max_attempts });
  if (v.status === 'pending' && v.delivery_ok === 1 && !v.error_code) {
    findings.push({
      kind: 'no_failure_reported',
      phone: v.phone,
      country: v.country,
      channel: v.channel,
      fromNumber: v.from_number,
      validForMs: v.expires_at - now,
    });
  }
  if (findings.length === 0) findings.push({ kind: 'unexplained' });
  return findings;
}
