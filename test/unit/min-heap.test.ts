// The monitor's deadline heap against a plain model (a Map, sorted when asked),
// over long random runs of sets, moves, removals and pops; and, in a child
// process, that it keeps its ids without the texts they were cut from.
import { describe, expect, it } from 'vitest';
import { DeadlineHeap } from '../../daemon/monitor/min-heap.js';
import { runGcChild } from '../helpers/gc-child.js';
import { prng } from '../helpers/random.js';

/**
 * A child Node process that sets 2,000 ids, each cut out of a text of 50 KB
 * (as an id decoded from a record or read from a URL is), lets go of the
 * texts, collects, and prints how much the heap holds past what it did
 * before: the texts would be 100 MB of it, were the heap to keep them.
 */
const RETENTION_CHILD = `
  const { DeadlineHeap } = await import('./daemon/monitor/min-heap.ts');
  const { randomUUID } = await import('node:crypto');
  const h = new DeadlineHeap();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 2000; i++) {
    const text = Buffer.alloc(50_000, 'x').toString('latin1') + randomUUID();
    h.set(text.slice(50_000), i);
  }
  gc();
  console.log(JSON.stringify({ grown: process.memoryUsage().heapUsed - before, size: h.size }));
`;

/** What popDue must return: the due ids by deadline, ties in any order, so compared as (deadline, id) pairs. */
function duePairs(model: Map<string, number>, now: number, limit: number): Array<[number, string]> {
  return [...model]
    .filter(([, at]) => at <= now)
    .map(([id, at]): [number, string] => [at, id])
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]))
    .slice(0, limit);
}

describe('DeadlineHeap', () => {
  it('starts empty', () => {
    const h = new DeadlineHeap();
    expect(h.size).toBe(0);
    expect(h.peek()).toBeNull();
    expect(h.popDue(Infinity, 10)).toEqual([]);
    h.set('a', null);
    expect(h.size).toBe(0);
  });

  it('keeps one deadline per id: a moved deadline replaces the old one, null removes it', () => {
    const h = new DeadlineHeap();
    h.set('a', 50);
    h.set('b', 20);
    h.set('c', 30);
    h.set('a', 10); // earlier
    h.set('b', 40); // later
    expect(h.size).toBe(3);
    expect(h.deadlineOf('a')).toBe(10);
    expect(h.peek()).toBe(10);
    h.set('a', null);
    expect(h.deadlineOf('a')).toBeUndefined();
    expect(h.popDue(35, 10)).toEqual(['c']);
    expect(h.popDue(100, 10)).toEqual(['b']);
    expect(h.size).toBe(0);
    // A removed id comes back as new.
    h.set('a', 5);
    expect(h.popDue(5, 10)).toEqual(['a']);
  });

  it('pops at most the limit, earliest first, and leaves the rest', () => {
    const h = new DeadlineHeap();
    for (let i = 0; i < 10; i++) h.set(`c${i}`, 100 - i);
    expect(h.popDue(95, 3)).toEqual(['c9', 'c8', 'c7']);
    expect(h.size).toBe(7);
    expect(h.peek()).toBe(94);
  });

  it('agrees with a plain model over 200,000 random operations on up to 3,000 ids', () => {
    const rnd = prng(23);
    const h = new DeadlineHeap();
    const model = new Map<string, number>();
    let now = 0;
    for (let step = 0; step < 200_000; step++) {
      const r = rnd();
      const id = `id${Math.floor(rnd() * 3000)}`;
      if (r < 0.6) {
        // Whole-millisecond deadlines near now, so ties happen.
        const at = now + Math.floor(rnd() * 500);
        h.set(id, at);
        model.set(id, at);
      } else if (r < 0.7) {
        h.set(id, null);
        model.delete(id);
      } else if (r < 0.75) {
        now += Math.floor(rnd() * 50);
        const limit = 1 + Math.floor(rnd() * 20);
        const expected = duePairs(model, now, limit);
        const got = h.popDue(now, limit);
        // Same deadlines in the same order; the ids of equal deadlines may come in any order.
        expect(got.map((g) => model.get(g))).toEqual(expected.map(([at]) => at));
        expect(new Set(got).size).toBe(got.length);
        for (const g of got) model.delete(g);
      } else {
        expect(h.deadlineOf(id)).toBe(model.get(id));
      }
      if (step % 1000 === 0) {
        expect(h.size).toBe(model.size);
        expect(h.peek()).toBe(model.size === 0 ? null : Math.min(...model.values()));
      }
    }
    // Drained, in order.
    const rest = h.popDue(Infinity, Infinity);
    expect(rest.map((id) => model.get(id))).toEqual([...model.values()].sort((a, b) => a - b));
    expect(h.size).toBe(0);
  });

  it('keeps its ids without the longer texts they were cut from', () => {
    const { stderr, printed } = runGcChild<{ grown: number; size: number }>(RETENTION_CHILD);
    expect(stderr).toBe('');
    const { grown, size } = printed;
    expect(size).toBe(2000);
    expect(grown).toBeLessThan(10 * 2 ** 20);
  }, 30_000);
});
