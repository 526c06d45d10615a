// The orders a bulk load writes its B-trees in (store/key-order.ts) must be
// exactly a comparison sort's: a key out of order costs the load its appends.
import { describe, expect, it } from 'vitest';
import { concat, groupBy, numbers, sortByNumber, sortByString } from '../../daemon/store/key-order.js';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('sortByString', () => {
  it('gives the comparison sort of strings of every kind, ties by the tie-break', () => {
    const next = random(7);
    // Empty strings, one character, ASCII, DEL, Latin-1, CJK, emoji (surrogate pairs), many repeats.
    const alphabet = ['', 'a', 'b', 'Z', '0', '~', '\u007f', '\u0080', 'é', 'ÿ', '\u00fe', '\u0100', '中', '😀', '\uff01', '-'];
    const keys = Array.from({ length: 20_000 }, () => {
      let s = '';
      const length = Math.floor(next() * 6);
      for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      return s;
    });
    const tie = (a: number, b: number) => b - a; // not the numbers' own order, to see it used
    const expected = Array.from(keys.keys()).sort((a, b) => compare(keys[a]!, keys[b]!) || tie(a, b));
    const ns = numbers(keys.length);
    expect(Array.from(sortByString(ns, (n) => keys[n]!, tie))).toEqual(expected);
    expect(Array.from(ns)).toEqual(Array.from(keys.keys())); // left as it was
  });

  it('sorts uuids as a comparison sort does', () => {
    const uuids = Array.from({ length: 3000 }, () => crypto.randomUUID());
    const got = sortByString(numbers(uuids.length), (n) => uuids[n]!, (a, b) => a - b);
    expect(Array.from(got, (n) => uuids[n])).toEqual([...uuids].sort());
  });

  it('sorts strings with long common beginnings, and many equal ones, by the tie-break', () => {
    const prefix = 'x'.repeat(100);
    const keys = Array.from({ length: 4000 }, (_, i) => (i % 3 === 0 ? `${prefix}same` : `${prefix}${i % 7}${i}`));
    const tie = (a: number, b: number) => b - a;
    const expected = Array.from(keys.keys()).sort((a, b) => compare(keys[a]!, keys[b]!) || tie(a, b));
    expect(Array.from(sortByString(numbers(keys.length), (n) => keys[n]!, tie))).toEqual(expected);
  });
});

describe('numbers, groupBy, concat, sortByNumber', () => {
  it('keeps the numbers asked for, groups them in string order and keeps their order within a group', () => {
    const project = ['p2', 'p1', 'p2', 'p10', 'p1', 'p2'];
    const kept = numbers(6, (n) => n !== 4);
    expect(Array.from(kept)).toEqual([0, 1, 2, 3, 5]);
    const groups = groupBy(kept, (n) => project[n]!);
    expect(groups.map((g) => Array.from(g))).toEqual([[1], [3], [0, 2, 5]]);
    expect(Array.from(concat(groups))).toEqual([1, 3, 0, 2, 5]);
  });

  it('sorts by number with ties in number order, and leaves numbers already in order as they are', () => {
    const created = [5, 3, 3, 9, 1];
    expect(Array.from(sortByNumber(numbers(5), (n) => created[n]!))).toEqual([4, 1, 2, 0, 3]);
    const inOrder = Int32Array.from([4, 1, 2, 0, 3]);
    expect(sortByNumber(inOrder, (n) => created[n]!)).toBe(inOrder);
  });
});
