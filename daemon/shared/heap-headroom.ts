// How much garbage V8 lets the daemon's heap gather before its next major
// collection. By default V8 lets the old generation grow to up to four times
// what the last one left alive: with a million checks in the heap, a burst of
// pings then leaves a gigabyte of garbage resident. A fixed small factor would
// bound that, but on a small heap it makes major collections so frequent that
// the ping path pays for them (docs/performance.md, "A bounded event log and
// a heap headroom"). So the headroom follows the live heap: a quarter of it,
// and never less than a floor that a small install's collections do not feel.
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** The least garbage allowed between major collections. */
export const HEADROOM_FLOOR_BYTES = 32 * 1024 * 1024;
/** Above the floor: this share of the live heap. */
export const HEADROOM_SHARE_PERCENT = 25;
/** V8's own largest growing factor is 4 (300 %): at or past that, leave V8 its default (0). */
const V8_MAX_PERCENT = 300;

/** V8's --heap-growing-percent for a heap that holds `liveBytes` after a major collection; 0 is V8's default. */
export function growingPercentFor(liveBytes: number): number {
  if (liveBytes <= 0) return 0;
  const percent = Math.max(HEADROOM_SHARE_PERCENT, Math.ceil((100 * HEADROOM_FLOOR_BYTES) / liveBytes));
  return percent >= V8_MAX_PERCENT ? 0 : percent;
}

/**
 * After each major collection, set V8's growing factor for the live heap it
 * left. Returns the function that stops it (V8 keeps the last factor set).
 */
export function startHeapHeadroom(onChange?: (percent: number, liveBytes: number) => void): () => void {
  let current = -1;
  const observer = new PerformanceObserver((list) => {
    const major = list.getEntries().some((e: PerformanceEntry) => (e.detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (!major) return;
    // Read now, shortly after the collection: close to what it left alive.
    const live = getHeapStatistics().used_heap_size;
    const percent = growingPercentFor(live);
    if (percent === current) return;
    current = percent;
    setFlagsFromString(`--heap-growing-percent=${percent}`);
    onChange?.(percent, live);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
