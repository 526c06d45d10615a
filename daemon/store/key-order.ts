// The orders a bulk load writes its B-trees in: the numbers of its checks
// sorted by a key of theirs. One comparison sort of a million numbers calls
// its comparator some twenty million times, each comparing two strings from
// their start (and names like "job 1", "job 2" share their start). The
// strings are sorted by their characters instead, one position at a time
// (an MSD radix sort), small groups by comparison.

/** JavaScript's order of two strings (UTF-16 code units), as a comparator. */
export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Character codes below this have a bucket each; the rest share the last one, sorted by comparison. */
const CODES = 255;
/** Buckets: the strings that end at the position, one per code below CODES, one for the rest. */
const BUCKETS = CODES + 2;
/** Groups this small are sorted by comparison. */
const SMALL_GROUP = 64;
/** Past this many characters in common, a group is sorted by comparison: each position costs a pass. */
const MAX_DEPTH = 64;

/**
 * `ns` in the order of the strings `key(n)`, equal strings in the order
 * `tie` gives. `ns` itself is left as it was.
 */
export function sortByString(ns: Int32Array, key: (n: number) => string, tie: (a: number, b: number) => number): Int32Array {
  const out = ns.slice();
  const spare = new Int32Array(ns.length);
  const digits = new Int32Array(ns.length);
  // Reused by every group, between the lowest and highest digit it has (hex keys use a few dozen).
  const counts = new Int32Array(BUCKETS + 1);
  const byComparison = (from: number, to: number) => {
    if (to - from > 1) out.subarray(from, to).sort((a, b) => compareStrings(key(a), key(b)) || tie(a, b));
  };
  // Groups of numbers whose strings share their first `depth` characters: [from, to, depth].
  const groups: number[] = [0, ns.length, 0];
  while (groups.length > 0) {
    const depth = groups.pop()!;
    const to = groups.pop()!;
    const from = groups.pop()!;
    if (to - from <= SMALL_GROUP || depth > MAX_DEPTH) {
      byComparison(from, to);
      continue;
    }
    let low = BUCKETS;
    let high = 0;
    for (let i = from; i < to; i++) {
      const s = key(out[i]!);
      const d = depth < s.length ? Math.min(s.charCodeAt(depth), CODES) + 1 : 0;
      digits[i] = d;
      if (d < low) low = d;
      if (d > high) high = d;
    }
    counts.fill(0, low, high + 2);
    for (let i = from; i < to; i++) counts[digits[i]! + 1]!++;
    // counts[d] becomes where bucket d starts (from `from`), counts[d + 1] where it ends.
    for (let d = low; d <= high; d++) counts[d + 1]! += counts[d]!;
    for (let i = from; i < to; i++) spare[from + counts[digits[i]!]!++] = out[i]!;
    out.set(spare.subarray(from, to), from);
    // Each bucket now ends where the next began: bucket d is [start, counts[d]).
    for (let d = low, start = from; d <= high; d++) {
      const end = from + counts[d]!;
      // Strings that end here are equal; the last bucket's codes differ, so it is compared whole.
      if (d === 0) out.subarray(start, end).sort(tie);
      else if (d === BUCKETS - 1) byComparison(start, end);
      else if (end - start > 1) groups.push(start, end, depth + 1);
      start = end;
    }
  }
  return out;
}

/** The numbers 0 .. count - 1 for which `keep` holds (all without it). */
export function numbers(count: number, keep?: (n: number) => boolean): Int32Array {
  const ns = new Int32Array(count);
  let k = 0;
  for (let n = 0; n < count; n++) if (!keep || keep(n)) ns[k++] = n;
  return k < count ? ns.slice(0, k) : ns;
}

/** `ns` split by `group(n)`, the groups in string order, each in the order of `ns`. */
export function groupBy(ns: Int32Array, group: (n: number) => string): Int32Array[] {
  const members = new Map<string, number[]>();
  for (const n of ns) {
    const g = group(n);
    let list = members.get(g);
    if (!list) members.set(g, (list = []));
    list.push(n);
  }
  return [...members.keys()].sort(compareStrings).map((g) => Int32Array.from(members.get(g)!));
}

/** Each of `parts` in turn, as one array. */
export function concat(parts: Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `ns` in ascending order of `value(n)`, equal values by number; left as they are when they already are (an export's file order is creation order). */
export function sortByNumber(ns: Int32Array, value: (n: number) => number): Int32Array {
  const cmp = (a: number, b: number) => value(a) - value(b) || a - b;
  for (let i = 1; i < ns.length; i++) if (cmp(ns[i - 1]!, ns[i]!) > 0) return ns.slice().sort(cmp);
  return ns;
}
