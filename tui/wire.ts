// The checkd.v1 messages as checktop receives them (proto-loader with keepCase,
// longs as Number, enums as String, defaults). The check, ping, flip and event
// shapes are the daemon's own (type-only imports: nothing of the daemon runs
// in the client); the rest are declared here.
import type { CheckMsg, FlipMsg, PingMsg, WatchEventMsg } from '../daemon/grpc/messages.js';

export type { CheckMsg, FlipMsg, PingMsg, WatchEventMsg };

export interface ProjectMsg {
  id: string;
  name: string;
  read_only: boolean;
  revision: number;
  check_limit: number;
  n_checks: number;
}

export interface CheckDetailMsg {
  check: CheckMsg | null;
  /** Newest first. */
  pings: PingMsg[];
  /** Newest first. */
  flips: FlipMsg[];
}

/** A check's identity on the wire: the uuid, or the unique_key for read-only keys (as in `check_id`). */
export function checkIdOf(check: Pick<CheckMsg, 'uuid' | 'unique_key'>): string {
  return check.uuid || check.unique_key;
}
