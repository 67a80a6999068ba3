// A transaction that takes several locks of one kind takes them in the order of their keys, the same order in every
// process (a turn's checks their numbers' advisory locks, a turn's sends their numbers' and ranges' row locks): two
// such transactions then wait for each other in one direction only, never in a circle.

/** Ascending order of lock keys (text compared by its UTF-16 code units, as JavaScript does; or 64-bit numbers). */
export const byKey = <K extends string | bigint>(a: K, b: K): number => (a < b ? -1 : a > b ? 1 : 0);

/** `items` in the order of their lock keys (each key made once). */
export function inKeyOrder<T>(items: readonly T[], key: (item: T) => string): T[] {
  return items
    .map((item) => ({ item, key: key(item) }))
    .sort((a, b) => byKey(a.key, b.key))
    .map(({ item }) => item);
}
