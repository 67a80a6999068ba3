// The overview's periods and the small pure helpers behind its numbers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countryOfPrefix } from '../../src/stats/country.js';
import { medianOf } from '../../src/stats/overview.js';
import { bucketStarts, DAY_MS, HOUR_MS, parsePeriodName, periodEndingAt } from '../../src/stats/period.js';

const at = (iso: string) => Date.parse(iso);

describe('stats: periods', () => {
  test('the day is 24 UTC hours: the current one and the 23 before it', () => {
    const p = periodEndingAt('day', at('2026-11-21T09:30:00.000Z'));
    assert.equal(p.bucketMs, HOUR_MS);
    assert.equal(p.since, at('2026-11-20T10:00:00.000Z'));
    assert.equal(p.until, at('2026-11-21T09:30:00.000Z'));
    const starts = bucketStarts(p);
    assert.equal(starts.length, 24);
    assert.equal(starts[0], p.since);
    assert.equal(starts[23], at('2026-11-21T09:00:00.000Z'));
  });

  test('the week is 7 UTC days: today and the 6 before it', () => {
    const p = periodEndingAt('week', at('2026-11-21T09:30:00.000Z'));
    assert.equal(p.bucketMs, DAY_MS);
    assert.equal(p.since, at('2026-11-15T00:00:00.000Z'));
    const starts = bucketStarts(p);
    assert.deepEqual(
      starts.map((s) => new Date(s).toISOString().slice(0, 10)),
      ['2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21'],
    );
  });

  test('at the first millisecond of an hour, that hour is the current bucket', () => {
    const p = periodEndingAt('day', at('2026-11-21T10:00:00.000Z'));
    assert.equal(p.since, at('2026-11-20T11:00:00.000Z'));
  });

  test('a period name comes from the query; anything else is the day', () => {
    assert.equal(parsePeriodName('week'), 'week');
    assert.equal(parsePeriodName('day'), 'day');
    for (const v of [undefined, '', 'month', ['week'], 7]) assert.equal(parsePeriodName(v), 'day');
  });
});

describe('stats: helpers', () => {
  test('medianOf: the lower median of a seconds histogram; null when empty', () => {
    assert.equal(medianOf([]), null);
    assert.equal(medianOf([{ seconds: 12, count: 1 }]), 12);
    assert.equal(
      medianOf([
        { seconds: 90, count: 1 },
        { seconds: 20, count: 1 },
        { seconds: 30, count: 1 },
      ]),
      30,
    );
    assert.equal(
      medianOf([
        { seconds: 5, count: 2 },
        { seconds: 40, count: 2 },
      ]),
      5,
    );
    assert.equal(
      medianOf([
        { seconds: 5, count: 1 },
        { seconds: 40, count: 3 },
      ]),
      40,
    );
  });

  test('countryOfPrefix: the calling code, and the area code for +1', () => {
    assert.equal(countryOfPrefix('+6141'), 'AU');
    assert.equal(countryOfPrefix('+4477'), 'GB');
    assert.equal(countryOfPrefix('+6421'), 'NZ');
    assert.equal(countryOfPrefix('+1212'), 'US');
    assert.equal(countryOfPrefix('+1416'), 'CA');
    assert.equal(countryOfPrefix('+3361'), 'Other');
  });
});
