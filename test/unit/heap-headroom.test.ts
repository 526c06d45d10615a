// The daemon's heap headroom: the factor for a live heap, and, in a child Node
// process, that a major collection sets it.
import { describe, expect, it } from 'vitest';
import { growingPercentFor, HEADROOM_FLOOR_BYTES } from '../../daemon/shared/heap-headroom.js';
import { runGcChild } from '../helpers/gc-child.js';

const MB = 2 ** 20;

describe('growingPercentFor', () => {
  it('a quarter of a large heap, the floor on a small one, V8 its own on a tiny one', () => {
    expect(growingPercentFor(1024 * MB)).toBe(25);
    expect(growingPercentFor(128 * MB)).toBe(25);
    expect(growingPercentFor(64 * MB)).toBe(50);
    expect(growingPercentFor(32 * MB)).toBe(100);
    expect(growingPercentFor(16 * MB)).toBe(200);
    // 32 MB of headroom on 8 MB would be 400 %: past V8's own largest factor.
    expect(growingPercentFor(8 * MB)).toBe(0);
    expect(growingPercentFor(0)).toBe(0);
    for (const live of [30, 100, 300, 900].map((m) => m * MB)) {
      const p = growingPercentFor(live);
      if (p > 0) expect((live * p) / 100).toBeGreaterThanOrEqual(Math.min(HEADROOM_FLOOR_BYTES, live * 3));
    }
  });
});

/**
 * A child Node process with the headroom started: it holds ~100 MB alive,
 * collects (a major GC), and prints what the observer set. Its effect on a
 * daemon's memory is measured by bench:scale, not here.
 */
const CHILD = `
  const { startHeapHeadroom } = await import('./daemon/shared/heap-headroom.ts');
  const seen = [];
  startHeapHeadroom((percent, live) => seen.push({ percent, live }));
  const held = Array.from({ length: 1_000_000 }, (_, i) => ({ i, s: 'held ' + i }));
  gc();
  for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  console.log(JSON.stringify({ seen, held: held.length }));
  process.exit(0);
`;

describe('startHeapHeadroom', () => {
  it('after a major collection, sets the factor for the heap it left', () => {
    const { stderr, printed } = runGcChild<{ seen: Array<{ percent: number; live: number }> }>(CHILD);
    expect(stderr).toBe('');
    const { seen } = printed;
    expect(seen.length).toBeGreaterThanOrEqual(1);
    const { percent, live } = seen[0]!;
    expect(live).toBeGreaterThan(40 * MB);
    expect(percent).toBe(growingPercentFor(live));
    expect(percent).toBeGreaterThan(0);
  }, 30_000);
});
