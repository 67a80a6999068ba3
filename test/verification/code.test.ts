// Unit tests of src/verification/code.ts, for api-decisions.md "Codes come from a CSPRNG, uniform over all
// code_length-digit strings (leading zeros allowed) ... only a keyed hash, compared in constant time" and the
// spec §8 limit code_length 4 to 8. The statistical bounds are set at about one-in-a-million false alarms.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { codeMatches, generateCode, hashCode } from '../../src/verification/code.js';

/** Pearson's chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(counts: number[], draws: number): number {
  const expected = draws / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

/** Upper critical value of chi-square with `df` degrees of freedom at p = 1e-6 (Wilson-Hilferty). */
function critical(df: number): number {
  const z = 4.753;
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

describe('generateCode (spec §8 code_length 4 to 8; decision: uniform, leading zeros allowed)', () => {
  for (const length of [4, 5, 6, 7, 8]) {
    test(`length ${length}: always exactly ${length} ASCII digits`, () => {
      for (let i = 0; i < 20_000; i++) {
        const code = generateCode(length);
        assert.match(code, new RegExp(`^[0-9]{${length}}$`));
      }
    });
  }

  test('length 4: every one of the 10 000 codes occurs, 0000 included, and the counts are uniform', () => {
    const draws = 300_000;
    const counts = new Array<number>(10_000).fill(0);
    for (let i = 0; i < draws; i++) {
      const code = generateCode(4);
      counts[Number(code)] = (counts[Number(code)] ?? 0) + 1;
    }
    const missing = counts.indexOf(0);
    assert.equal(missing, -1, `code ${String(missing).padStart(4, '0')} never drawn`);
    const stat = chiSquare(counts, draws);
    assert.ok(stat < critical(counts.length - 1), `chi-square ${stat.toFixed(1)}`);
  });

  test('length 8: each digit position is uniform over 0-9', () => {
    const draws = 100_000;
    const perPosition = Array.from({ length: 8 }, () => new Array<number>(10).fill(0));
    for (let i = 0; i < draws; i++) {
      const code = generateCode(8);
      for (let p = 0; p < 8; p++) {
        const counts = perPosition[p] as number[];
        const d = Number(code[p]);
        counts[d] = (counts[d] ?? 0) + 1;
      }
    }
    perPosition.forEach((counts, p) => {
      const stat = chiSquare(counts, draws);
      assert.ok(stat < critical(9), `position ${p}: chi-square ${stat.toFixed(1)} for ${counts.join(',')}`);
    });
  });

  test('length 6: leading zeros occur about one time in ten (not dropped or avoided)', () => {
    const draws = 100_000;
    let leadingZero = 0;
    let twoLeadingZeros = 0;
    for (let i = 0; i < draws; i++) {
      const code = generateCode(6);
      if (code.startsWith('0')) leadingZero++;
      if (code.startsWith('00')) twoLeadingZeros++;
    }
    // Six standard deviations either side of the expected 10 000 and 1 000.
    const sd1 = Math.sqrt(draws * 0.1 * 0.9);
    assert.ok(Math.abs(leadingZero - 10_000) < 6 * sd1, `leading zero in ${leadingZero} of ${draws}`);
    const sd2 = Math.sqrt(draws * 0.01 * 0.99);
    assert.ok(Math.abs(twoLeadingZeros - 1_000) < 6 * sd2, `two leading zeros in ${twoLeadingZeros}`);
  });

  test('length 6: the numeric value spans the whole range evenly (mean and decile counts)', () => {
    const draws = 100_000;
    const deciles = new Array<number>(10).fill(0);
    let sum = 0;
    for (let i = 0; i < draws; i++) {
      const value = Number(generateCode(6));
      sum += value;
      const d = Math.floor(value / 100_000);
      deciles[d] = (deciles[d] ?? 0) + 1;
    }
    const mean = sum / draws;
    // Uniform over 0..999999: mean 499999.5, standard deviation of the mean about 913.
    assert.ok(Math.abs(mean - 499_999.5) < 6 * 913, `mean ${mean}`);
    const stat = chiSquare(deciles, draws);
    assert.ok(stat < critical(9), `chi-square ${stat.toFixed(1)} for ${deciles.join(',')}`);
  });
});

describe('hashCode / codeMatches (decision: only a keyed hash, bound to the verification id, constant-time compare)', () => {
  const key = randomBytes(32);
  const id = 'ver_AAAAAAAAAAAAAAAAAAAAAAAA';

  test('the hash is a 64-hex-digit HMAC-SHA256, deterministic, and not the code', () => {
    const h = hashCode(key, id, '123456');
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.equal(hashCode(key, id, '123456'), h);
    assert.equal(h.includes('123456'), false);
  });

  test('the correct code matches', () => {
    for (const code of ['0000', '012345', '99999999']) {
      assert.equal(codeMatches([key], id, code, hashCode(key, id, code)), true, code);
    }
  });

  test('a wrong code does not match, also one differing only in a leading zero', () => {
    const stored = hashCode(key, id, '012345');
    for (const code of ['012346', '12345', '0012345', '112345', '']) {
      assert.equal(codeMatches([key], id, code, stored), false, code);
    }
  });

  test('the hash is bound to the verification id: the same code under another id does not match', () => {
    const otherId = 'ver_BBBBBBBBBBBBBBBBBBBBBBBB';
    assert.notEqual(hashCode(key, id, '123456'), hashCode(key, otherId, '123456'));
    assert.equal(codeMatches([key], otherId, '123456', hashCode(key, id, '123456')), false);
    assert.equal(codeMatches([key], id, '123456', hashCode(key, otherId, '123456')), false);
  });

  test('the hash is bound to the key: another key neither produces nor matches it', () => {
    const otherKey = randomBytes(32);
    assert.notEqual(hashCode(key, id, '123456'), hashCode(otherKey, id, '123456'));
    assert.equal(codeMatches([otherKey], id, '123456', hashCode(key, id, '123456')), false);
  });

  test('with a previous key in the ring, a code hashed under either key matches; under neither, it does not', () => {
    const previous = randomBytes(32);
    const ring = [key, previous] as const;
    assert.equal(codeMatches(ring, id, '123456', hashCode(previous, id, '123456')), true);
    assert.equal(codeMatches(ring, id, '123456', hashCode(key, id, '123456')), true);
    assert.equal(codeMatches(ring, id, '123457', hashCode(previous, id, '123456')), false);
    assert.equal(codeMatches(ring, id, '123456', hashCode(randomBytes(32), id, '123456')), false);
  });

  test('constant-time compare returns false (does not throw) for a stored hash of the wrong length', () => {
    const stored = hashCode(key, id, '123456');
    for (const wrong of [stored.slice(0, 62), stored.slice(0, 32), `${stored}00`, '', 'zz']) {
      assert.doesNotThrow(() => codeMatches([key], id, '123456', wrong));
      assert.equal(codeMatches([key], id, '123456', wrong), false, JSON.stringify(wrong));
    }
  });
});
