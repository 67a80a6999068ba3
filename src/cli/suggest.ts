// "Did you mean …?": the nearest of the valid names to what was typed, by edit distance (Levenshtein, with a swap of
// two neighbouring letters counted as one edit, so `--worksapce` is one edit from `--workspace`).

/** Edits (insert, delete, replace, swap neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const same = a[i - 1] === b[j - 1] ? 0 : 1;
      const prev = rows[i - 1] as number[];
      let best = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + same,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** Typed words longer than this are not compared (a pasted blob is nobody's typo, and the table grows as its square). */
const MAX_TYPED = 64;

/**
 * The valid name nearest to `typed`, when it is near enough to be a typo: at most a third of its length in edits
 * (at least 1, at most 3), or a name it is the start of. Undefined when nothing is close.
 */
export function nearest(typed: string, names: Iterable<string>): string | undefined {
  if (typed.length === 0 || typed.length > MAX_TYPED) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = name.startsWith(typed) ? 1 : editDistance(typed, name);
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** `; did you mean X?` for the nearest name, else `otherwise` (a hint where to look). */
export function didYouMean(typed: string, names: Iterable<string>, otherwise: string, quote = ''): string {
  const name = nearest(typed, names);
  return name === undefined ? otherwise : `; did you mean ${quote}${name}${quote}?`;
}
