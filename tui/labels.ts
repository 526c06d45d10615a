// What checktop's table calls each status, the order it sorts them in, and the
// counts per label the header shows. A leaf: the row table and the state both
// build on it.
import type { DisplayStatusV2 } from '../daemon/domain/types.js';

/** What the table shows: the display status, except that a run in progress reads "running". */
export type Label = 'down' | 'grace' | 'running' | 'new' | 'up' | 'paused';

/** Labels indexed by rank. */
export const LABELS: readonly Label[] = ['down', 'grace', 'running', 'new', 'up', 'paused'];

/**
 * Sort order, worst first: down, grace, running (a start signal is
 * outstanding: it turns down if the run outlives its grace), new (never
 * pinged, often a job not wired up yet), up, paused (silenced on purpose).
 */
export function rankOf(status: DisplayStatusV2, started: boolean): number {
  switch (status) {
    case 'down':
      return 0;
    case 'grace':
      return 1;
    case 'paused':
      return 5;
    default:
      if (started) return 2;
      return status === 'new' ? 3 : 4;
  }
}

export function labelOf(row: { rank: number }): Label {
  return LABELS[row.rank]!;
}

/** Checks per label, and in all; the labels partition the checks. */
export type Counts = Record<Label, number> & { total: number };

export function emptyCounts(): Counts {
  const counts = { total: 0 } as Counts;
  for (const label of LABELS) counts[label] = 0;
  return counts;
}
