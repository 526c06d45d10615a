// The checkd.v1 messages as checktop receives them (proto/messages.ts, the
// shapes the daemon builds), and what checktop derives from them.
import type {
  CheckDetailMsg,
  CheckMsg,
  FlipMsg,
  ListFlipsResponseMsg,
  ListPingsResponseMsg,
  PingBodyMsg,
  PingMsg,
  ProjectMsg,
  StorageAlarmMsg,
  WatchEventMsg,
} from '../proto/messages.js';
import type { StatusInputs } from '../daemon/domain/status.js';
import type { StoredStatus } from '../daemon/domain/types.js';

export type { CheckDetailMsg, CheckMsg, FlipMsg, ListFlipsResponseMsg, ListPingsResponseMsg, PingBodyMsg, PingMsg, ProjectMsg, StorageAlarmMsg, WatchEventMsg };

/** A check's identity on the wire: the uuid, or the unique_key for read-only keys (as in `check_id`). */
export function checkIdOf(check: Pick<CheckMsg, 'uuid' | 'unique_key'>): string {
  return check.uuid || check.unique_key;
}

/**
 * What the domain's statusAt reads, from the fields the daemon sends for it
 * (0 on the wire is "none"), so checktop moves a check into grace and down on
 * time between server events by the daemon's own rule.
 */
export function statusInputsOf(check: CheckMsg): StatusInputs {
  return {
    status: check.stored_status as StoredStatus,
    expected: check.expected_ms || null,
    grace: check.grace_s,
    lastStart: check.last_start_ms > 0 ? check.last_start_ms : null,
    // A run limit of its own (alert-policies §1) replaces grace for a started run.
    ...(check.max_duration_s ? { runLimit: check.max_duration_s } : {}),
  };
}
