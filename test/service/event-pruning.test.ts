// The event log's pruning on a real LMDB: the count bound, the age bound, the
// floor of a consumer that has not read on, and a backlog taken in batches.
import { describe, expect, it, onTestFinished } from 'vitest';
import { EVENT_RETENTION } from '../../daemon/store/events.js';
import type { Store } from '../../daemon/store/store.js';
import { openTempStore } from '../helpers/store.js';

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const DAY = 86_400_000;

/** Retention shrunk for one test. */
function retain(bounds: Partial<typeof EVENT_RETENTION>): void {
  const saved = { ...EVENT_RETENTION };
  onTestFinished(() => void Object.assign(EVENT_RETENTION, saved));
  Object.assign(EVENT_RETENTION, bounds);
}

/** `n` project events, the i-th at `at(i)`. */
async function append(store: Store, n: number, at: (i: number) => number): Promise<void> {
  await store.transact(() => {
    for (let i = 0; i < n; i++) store.appendEventInTxn({ at: at(i), type: 'project.changed', projectId: 'p', checkUuid: null });
  });
}

async function pruneAll(store: Store, now: number, keepAfter?: number): Promise<number[]> {
  const passes: number[] = [];
  for (let n = -1; n !== 0; ) passes.push((n = await store.pruneEvents(now, keepAfter)));
  return passes;
}

describe('pruning the event log', () => {
  it('keeps the newest maxEvents; a backlog goes 10,000 events a pass', async () => {
    const { store } = openTempStore();
    retain({ maxEvents: 100 });
    await append(store, 25_100, () => T0);
    expect(await pruneAll(store, T0)).toEqual([10_000, 10_000, 5_000, 0]);
    expect(store.oldestRetainedRevision()).toBe(25_001);
    expect(store.eventsAfter(0, 1000).map((e) => e.rev)).toEqual(Array.from({ length: 100 }, (_, i) => 25_001 + i));
  });

  it('drops events older than maxAgeMs, however few there are', async () => {
    const { store } = openTempStore();
    retain({ maxEvents: 1000, maxAgeMs: 7 * DAY });
    // Nine days ago, eight, ... today, then ten now: those of nine and eight days go; seven is the bound, kept.
    await append(store, 20, (i) => (i < 10 ? T0 - (9 - i) * DAY : T0));
    expect(await pruneAll(store, T0)).toEqual([2, 0]);
    expect(store.oldestRetainedRevision()).toBe(3);
  });

  it('never prunes past the floor, by count or by age', async () => {
    const { store } = openTempStore();
    retain({ maxEvents: 10, maxAgeMs: DAY });
    await append(store, 100, () => T0 - 2 * DAY);
    expect(await pruneAll(store, T0, 40)).toEqual([40, 0]);
    expect(store.oldestRetainedRevision()).toBe(41);
    // The consumer read on: the rest goes, the count bound first, then the age.
    expect(await pruneAll(store, T0, 95)).toEqual([55, 0]);
    expect(store.oldestRetainedRevision()).toBe(96);
  });

  it('an empty log, or one within its bounds, loses nothing', async () => {
    const { store } = openTempStore();
    expect(await pruneAll(store, T0)).toEqual([0]);
    await append(store, 50, () => T0);
    expect(await pruneAll(store, T0)).toEqual([0]);
    expect(store.oldestRetainedRevision()).toBe(1);
  });
});
