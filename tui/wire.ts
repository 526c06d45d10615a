// The checkd.v1 messages as checktop receives them (proto-loader with keepCase,
// longs as Number, enums as String, defaults). The check, ping, flip and event
// shapes are the daemon's own (type-only imports: nothing of the daemon runs
// in the client).
import type { CheckDetailMsg, CheckMsg, FlipMsg, PingMsg, ProjectMsg, WatchEventMsg } from '../daemon/grpc/messages.js';

export type { CheckDetailMsg, CheckMsg, FlipMsg, PingMsg, ProjectMsg, WatchEventMsg };

/** A check's identity on the wire: the uuid, or the unique_key for read-only keys (as in `check_id`). */
export function checkIdOf(check: Pick<CheckMsg, 'uuid' | 'unique_key'>): string {
  return check.uuid || check.unique_key;
}
