// The status strip of the detail view: a check's flips as cells of time.
import type { DisplayStatusV2 } from '../daemon/domain/types.js';
import { rankOf } from './labels.js';
import type { FlipMsg } from './wire.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

export interface Timeline {
  /** Worst stored status within each cell, oldest cell first; null before anything is known. */
  cells: (DisplayStatusV2 | null)[];
  /** How much time the strip covers, ending at `now`. */
  spanMs: number;
}

/**
 * A strip of `width` cells ending at `now`, coloured by status. The span
 * stretches to the oldest flip (between an hour and 30 days); each cell shows
 * the worst status it saw, so a short outage is never averaged away.
 */
export function timeline(flipsNewestFirst: readonly FlipMsg[], now: number, width: number): Timeline {
  if (width <= 0) return { cells: [], spanMs: 0 };
  const flips = [...flipsNewestFirst].sort((a, b) => a.timestamp_ms - b.timestamp_ms);
  const oldest = flips[0]?.timestamp_ms ?? now;
  // A little room before the oldest flip so the status it left is visible too.
  const spanMs = Math.min(Math.max((now - oldest) * 1.05, HOUR), 30 * DAY);
  const start = now - spanMs;
  const step = spanMs / width;
  const cells: (DisplayStatusV2 | null)[] = [];
  let status: DisplayStatusV2 | null = flips[0] ? (flips[0].old_status as DisplayStatusV2) : null;
  let next = 0;
  // Flips older than the strip only set the status it starts with.
  while (next < flips.length && flips[next]!.timestamp_ms < start) status = flips[next++]!.new_status as DisplayStatusV2;
  for (let i = 0; i < width; i++) {
    const cellEnd = start + (i + 1) * step;
    let worst = status;
    while (next < flips.length && flips[next]!.timestamp_ms < cellEnd) {
      status = flips[next]!.new_status as DisplayStatusV2;
      if (worst === null || rankOf(status, false) < rankOf(worst, false)) worst = status;
      next++;
    }
    cells.push(worst);
  }
  return { cells, spanMs };
}
