// A check's history as the detail view holds it: the newest pings and flips
// (GetCheck, fetched again as events arrive) with the older pages loaded on
// demand (ListPings, ListFlips) behind them; and which ping's output the
// view shows.
import type { FlipMsg, PingMsg } from './wire.js';

/** Older pages, behind the newest ones. */
export interface OlderPages {
  pings: PingMsg[];
  flips: FlipMsg[];
  /** Whether older pings or flips remain on the daemon; null: not asked yet. */
  pingsMore: boolean | null;
  flipsMore: boolean | null;
}

export const NO_OLDER: OlderPages = { pings: [], flips: [], pingsMore: null, flipsMore: null };

/**
 * The newest pings followed by the older ones, newest first. Older pages are
 * kept only while they follow on from the newest without a gap (more pings
 * than a page arrived since: they are asked for again).
 */
export function mergePings(newest: readonly PingMsg[], older: readonly PingMsg[]): PingMsg[] {
  const last = newest.at(-1);
  if (!last || older.length === 0 || older[0]!.n !== last.n - 1) return [...newest];
  return [...newest, ...older];
}

/** The same for flips, which follow on when the older ones come right before the newest's oldest revision. */
export function mergeFlips(newest: readonly FlipMsg[], older: readonly FlipMsg[]): FlipMsg[] {
  const last = newest.at(-1);
  if (!last || older.length === 0 || older[0]!.revision >= last.revision) return [...newest];
  return [...newest, ...older];
}

/** Whether older ones may remain: as the daemon said, or, before any page was asked for, when the first came full. */
export function mayHaveMore(more: boolean | null, loaded: number, firstPage: number): boolean {
  return more ?? loaded >= firstPage;
}

/**
 * The ping whose body the detail view shows: the latest failure that sent
 * output, else the latest ping with a body; null when none has one.
 */
export function outputPing(pings: readonly PingMsg[]): PingMsg | null {
  return pings.find((p) => p.type === 'fail' && p.body_size > 0) ?? pings.find((p) => p.body_size > 0) ?? null;
}

/** Run durations in seconds, oldest first: the pings that ended a timed run. */
export function runDurations(pings: readonly PingMsg[]): { seconds: number; failed: boolean }[] {
  return pings
    .filter((p) => (p.type === 'success' || p.type === 'fail') && p.duration_s >= 0)
    .map((p) => ({ seconds: p.duration_s, failed: p.type === 'fail' }))
    .reverse();
}
