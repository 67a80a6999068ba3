// The "code never arrived" diagnosis: data the dashboard renders, read from a record and its timeline.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { diagnoseDelivery } from '../../src/verification/diagnosis.js';
import type { VerificationRecord } from '../../src/verification/service.js';

const NOW = 2_000;

function record(
  changes: Partial<VerificationRecord['verification']>,
  events: { kind: string; detail?: Record<string, unknown> }[] = [],
): VerificationRecord {
  const verification = {
    id: 'ver_1',
    phone: '+61412345678',
    channel: 'sms',
    status: 'pending',
    created_at: 1_000,
    expires_at: 601_000,
    verified_at: null,
    attempts: 0,
    max_attempts: 5,
    delivery_ok: null,
    error_code: null,
    country: 'AU',
    from_number: '+61491570156',
    ...changes,
  } as VerificationRecord['verification'];
  return {
    verification,
    events: events.map((e, i) => ({
      id: `evt_${i}`,
      at: 1_000,
      detail: {},
      ...e,
    })) as VerificationRecord['events'],
  };
}

const kinds = (r: VerificationRecord) => diagnoseDelivery(r, NOW).map((f) => f.kind);

describe('diagnoseDelivery', () => {
  test('a verified code: that finding alone', () => {
    assert.deepEqual(diagnoseDelivery(record({ status: 'verified', verified_at: 5_000, attempts: 2 }), NOW), [
      { kind: 'verified', at: 5_000, attempts: 2 },
    ]);
  });

  test('gave up: the carrier could not be reached, with the attempts the timeline counted', () => {
    const r = record({ status: 'expired' }, [{ kind: 'gave_up', detail: { attempts: 3 } }]);
    assert.deepEqual(diagnoseDelivery(r, NOW)[0], { kind: 'carrier_unreachable', attempts: '3' });
  });

  test('pending and not handed over: retrying when a retry is scheduled', () => {
    const r = record({}, [{ kind: 'retry_scheduled' }]);
    assert.deepEqual(diagnoseDelivery(r, NOW), [
      { kind: 'not_handed_over', retrying: true, expiresAt: 601_000 },
    ]);
  });

  test('superseded: the newer code is named, and expiry is then not blamed on waiting', () => {
    const r = record({ status: 'expired', delivery_ok: 1 }, [
      { kind: 'superseded', detail: { by: 'ver_2' } },
    ]);
    assert.deepEqual(diagnoseDelivery(r, NOW), [{ kind: 'superseded', newerId: 'ver_2' }]);
  });

  test('refused at hand-over, canceled, failed', () => {
    assert.deepEqual(
      kinds(
        record({ status: 'canceled', delivery_ok: 0, error_code: 'invalid_number' }, [{ kind: 'canceled' }]),
      ),
      ['refused', 'canceled'],
    );
    assert.deepEqual(kinds(record({ status: 'failed', delivery_ok: 1, error_code: 'unreachable' })), [
      'undelivered',
      'failed',
    ]);
  });

  test('handed over with no failure: how long the code stays valid', () => {
    const [finding] = diagnoseDelivery(record({ delivery_ok: 1 }), NOW);
    assert.equal(finding?.kind, 'no_failure_reported');
    assert.equal(finding?.kind === 'no_failure_reported' && finding.validForMs, 599_000);
  });

  test('nothing explains it: one finding that says so', () => {
    assert.deepEqual(kinds(record({ status: 'canceled', delivery_ok: 1 })), ['unexplained']);
  });
});
