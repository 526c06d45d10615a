// What the table and the details say of a check's time: when it goes down,
// how long it has been down, how long its run has been going; and its last
// activity. Pure functions of the check and the server's `now`.
import { downAt } from '../daemon/domain/status.js';
import { span } from './format.js';
import type { Label } from './labels.js';
import { statusInputsOf, type CheckMsg } from './wire.js';

/**
 * When a check that shows down went down: its flip, for one stored as down;
 * otherwise the deadline that passed (the daemon has not flipped it yet, or
 * a run outlived its grace). Null when that is not known.
 */
export function downSince(check: CheckMsg): number | null {
  if (check.stored_status === 'down') return check.down_since_ms > 0 ? check.down_since_ms : null;
  return downAt(statusInputsOf(check));
}

/** "down in 4m 10s" (up, grace), "down for 2h 13m" (down), "running 3m" (a run in progress), "-" otherwise. */
export function countdown(check: CheckMsg, label: Label, now: number): string {
  switch (label) {
    case 'running':
      return `running ${span(now - check.last_start_ms)}`;
    case 'up':
    case 'grace': {
      const at = downAt(statusInputsOf(check));
      return at === null ? '-' : `down in ${span(at - now)}`;
    }
    case 'down': {
      const since = downSince(check);
      return since === null ? 'down' : `down for ${span(now - since)}`;
    }
    default:
      return '-';
  }
}

/** The last ping of any kind the check shows: a start counts, so a job that only started is not "never". */
export function lastActivity(check: Pick<CheckMsg, 'last_ping_ms' | 'last_start_ms'>): number {
  return Math.max(check.last_ping_ms, check.last_start_ms);
}
