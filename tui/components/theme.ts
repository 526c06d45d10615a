// Colours by label, shared by the table, the header counts and the detail view.
// Named terminal colours only: they follow the user's palette, light or dark.
import type { DisplayStatusV2 } from '../../daemon/domain/types.js';
import type { Label } from '../labels.js';

export const LABEL_COLOR: Record<Label, string> = {
  down: 'red',
  grace: 'yellow',
  running: 'cyan',
  new: 'blue',
  up: 'green',
  paused: 'gray',
};

export function statusColor(status: DisplayStatusV2 | Label | string): string {
  return LABEL_COLOR[status as Label] ?? 'white';
}

/** Ping types in the detail view. */
export const PING_COLOR: Record<string, string> = {
  success: 'green',
  start: 'cyan',
  fail: 'red',
  log: 'gray',
  ign: 'gray',
};
