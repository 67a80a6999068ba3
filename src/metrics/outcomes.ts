// The outcome labels of sends and checks: closed sets (a delivery state, a check's result, a catalogue code and
// the reason a refusal names), so a label never carries a caller's text.
import { AppError } from '../errors.js';
import type { Metrics } from './metrics.js';

/** A send that was accepted, by what its first hand-over came to when the answer left. */
export function acceptedSendOutcome(row: { delivery_ok: number | null }): string {
  if (row.delivery_ok === 1) return 'handed_over';
  if (row.delivery_ok === 0) return 'undelivered';
  return 'handing_over';
}

/** A refused send or check: its problem code, with the reason where the problem names one (destination_blocked). */
export function refusalOutcome(err: unknown): string {
  if (!(err instanceof AppError)) return 'error';
  const reason = err.extras.reason;
  return typeof reason === 'string' && /^[a-z_]{1,40}$/.test(reason) ? `${err.code}:${reason}` : err.code;
}

/** A check's answer: verified, a wrong code on a pending verification, or the status of one that takes no codes. */
export function checkOutcome(result: { verified: boolean; status: string }): string {
  if (result.verified) return 'verified';
  return result.status === 'pending' ? 'wrong_code' : result.status;
}

/** The service's sends refused and checks answered, counted as they settle; the work's result is unchanged. */
export function countRefusedSend<T>(
  metrics: Pick<Metrics, 'send'>,
  channel: string,
  work: Promise<T>,
): Promise<T> {
  return work.catch((err: unknown) => {
    metrics.send(channel, refusalOutcome(err), 'none');
    throw err;
  });
}

export function countCheck<T extends { verified: boolean; status: string }>(
  metrics: Pick<Metrics, 'check'>,
  work: Promise<T>,
): Promise<T> {
  return work.then(
    (result) => {
      metrics.check(checkOutcome(result));
      return result;
    },
    (err: unknown) => {
      metrics.check(refusalOutcome(err));
      throw err;
    },
  );
}
