// The history of the detail view: a check's flips as a strip of cells of
// time, and its recent run durations as a sparkline.
import type { DisplayStatusV2 } from '../daemon/domain/types.js';
import { rankOf } from './labels.js';
import type { FlipMsg } from './wire.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** A cell: the worst status seen in it; null when unknown; 'none' when the check did not exist yet. */
export type Cell = DisplayStatusV2 | null | 'none';

export interface Timeline {
  /** Worst stored status within each cell, oldest cell first. */
  cells: Cell[];
  /** How much time the strip covers, ending at `now`. */
  spanMs: number;
}

/** The windows `w` steps through: stretched to the flips known (0), or a fixed span. */
export const WINDOWS: readonly number[] = [0, HOUR, DAY, 7 * DAY, 30 * DAY];

export interface TimelineOptions {
  /** A fixed span; absent or 0: stretched to the oldest flip. */
  spanMs?: number;
  /** When the check was created: cells before it are 'none', and it was new until its first flip. */
  createdMs?: number;
}

/**
 * A strip of `width` cells ending at `now`, coloured by status. The span is
 * fixed, or stretches to the oldest flip (between an hour and 30 days); each
 * cell shows the worst status it saw, so a short outage is never averaged away.
 */
export function timeline(flipsNewestFirst: readonly FlipMsg[], now: number, width: number, opts: TimelineOptions = {}): Timeline {
  if (width <= 0) return { cells: [], spanMs: 0 };
  const flips = [...flipsNewestFirst].sort((a, b) => a.timestamp_ms - b.timestamp_ms);
  const oldest = flips[0]?.timestamp_ms ?? now;
  // A little room before the oldest flip so the status it left is visible too.
  const spanMs = opts.spanMs || Math.min(Math.max((now - oldest) * 1.05, HOUR), 30 * DAY);
  const start = now - spanMs;
  const step = spanMs / width;
  const cells: Cell[] = [];
  const created = opts.createdMs ?? -Infinity;
  // Every check starts new: with its creation known, that is the status before its first flip.
  let status: DisplayStatusV2 | null = flips[0] ? (flips[0].old_status as DisplayStatusV2) : opts.createdMs ? 'new' : null;
  let next = 0;
  // Flips older than the strip only set the status it starts with.
  while (next < flips.length && flips[next]!.timestamp_ms < start) status = flips[next++]!.new_status as DisplayStatusV2;
  for (let i = 0; i < width; i++) {
    const cellEnd = start + (i + 1) * step;
    if (cellEnd <= created) {
      cells.push('none');
      continue;
    }
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

const BARS = '▁▂▃▄▅▆▇█';

/** Values as bars of eight heights, the largest full; one bar per value. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => BARS[max > 0 ? Math.min(7, Math.floor((v / max) * 7.999)) : 0]).join('');
}
