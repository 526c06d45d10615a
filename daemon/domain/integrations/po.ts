// The value of a `po` (Pushover) channel: the user or group key and a
// priority per event, -3 turning that event off. Pure.
import { ValueError } from '../value-rules.js';

/** The priority that sends nothing for its event. */
export const PO_OFF = -3;
/** Pushover's emergency priority: repeated until acknowledged. */
export const PO_EMERGENCY = 2;

export interface PoConf {
  userKey: string;
  priority: number;
  priorityUp: number;
}

function priority(raw: string | undefined): number {
  if (raw === undefined || !/^-?\d$/.test(raw) || Number(raw) < PO_OFF || Number(raw) > PO_EMERGENCY) {
    throw new ValueError('--value for a po channel: priorities are whole numbers from -3 (off) to 2 (emergency)');
  }
  return Number(raw);
}

/** `<user or group key>|<down priority>|<up priority>`, or the older `<key>|<priority>` for both. */
export function parsePoValue(value: string): PoConf {
  const parts = value.split('|');
  if (parts.length < 2 || parts.length > 3 || !/^[A-Za-z0-9]{1,50}$/.test(parts[0]!)) {
    throw new ValueError(`--value for a po channel must be <user key>|<down priority>|<up priority> (like uQiRzpo4DXghDmr9QzzfQu27cmVRsG|2|0), got "${value}"`);
  }
  const down = priority(parts[1]);
  const up = parts.length === 3 ? priority(parts[2]) : down;
  if (down === PO_OFF && up === PO_OFF) throw new ValueError('--value for a po channel: both priorities are -3 (off)');
  return { userKey: parts[0]!, priority: down, priorityUp: up };
}
