// One check as checktop's table holds it: the wire check plus what is derived
// from it once (display status, rank, sort and search keys, when to look again),
// so that sorting and filtering 100,000 rows do no per-row work.
import { downAt, nextStatusChange, statusAt } from '../daemon/domain/status.js';
import type { DisplayStatusV2 } from '../daemon/domain/types.js';
import { lastActivity } from './countdown.js';
import { rankOf } from './labels.js';
import { checkIdOf, statusInputsOf, type CheckMsg } from './wire.js';

export interface Row {
  id: string;
  check: CheckMsg;
  status: DisplayStatusV2;
  rank: number;
  /** Lower-cased name, then id: precomputed so sorting 10,000 rows does no string work. */
  sortKey: string;
  /** Lower-cased name, slug and tags: what `/` matches. */
  haystack: string;
  /** Server time at which the status may change by itself (nextStatusChange). */
  due: number;
  /** What the other orders sort by: last activity, when it goes down (Infinity: not by itself), the last run in ms. */
  lastAt: number;
  deadline: number;
  duration: number;
}

export function makeRow(check: CheckMsg, serverNow: number): Row {
  const inputs = statusInputsOf(check);
  const status = statusAt(inputs, serverNow);
  const id = checkIdOf(check);
  return {
    id,
    check,
    status,
    rank: rankOf(status, check.started),
    sortKey: `${check.name.toLowerCase()}\u0000${id}`,
    haystack: [check.name, check.slug, ...check.tags].join(' ').toLowerCase(),
    due: nextStatusChange(inputs, serverNow),
    lastAt: lastActivity(check),
    deadline: downAt(inputs) ?? Infinity,
    duration: check.last_duration_ms,
  };
}

/** The row at server time `at`: status, rank and next threshold recomputed, the rest kept. */
export function rowAt(row: Row, at: number): Row {
  const inputs = statusInputsOf(row.check);
  const status = statusAt(inputs, at);
  return { ...row, status, rank: rankOf(status, row.check.started), due: nextStatusChange(inputs, at) };
}
