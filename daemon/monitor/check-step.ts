// One monitor step for a check whose time has come, inside the monitor's
// write transaction: the deadline (status-machine §4; alert-policies §1), the
// end of a mute (§4.1) and the hold it may leave (§4, §5). Each change is
// stored with its event; the check as it is afterwards is returned.
import { applyUnmute, evaluateDeadline } from '../domain/status.js';
import { decideFlip, settleHoldInTxn } from '../service/holds.js';
import type { CheckRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../shared/log.js';

/** When the monitor must look at the check next: its deadline or the end of its mute; null for never. */
export function wakeAt(check: CheckRecord): number | null {
  let at = check.alertAfter;
  if (check.mutedUntil !== undefined && (at === null || check.mutedUntil < at)) at = check.mutedUntil;
  return at;
}

export function stepCheck(store: Store, check: CheckRecord, now: number, logger: Logger): CheckRecord {
  let current = check;
  const result = evaluateDeadline(current, now);
  if (result?.flip) {
    const decided = decideFlip(store, current, result.check, result.flip, now);
    store.saveCheckInTxn(decided.check, now, 'status.changed', decided.flip);
    current = decided.check;
    logger.info(
      { check: check.uuid, from: decided.flip.oldStatus, to: decided.flip.newStatus, at: decided.flip.created, held: decided.flip.held },
      'check went down',
    );
  } else if (result) {
    // Not down yet (in grace): only the internal deadline moves; no event needed.
    store.putCheckStatusInTxn(result.check);
    current = result.check;
  }
  if (current.mutedUntil !== undefined && now >= current.mutedUntil) {
    current = applyUnmute(current)!;
    store.savePolicyEventInTxn(current, now, 'check.unmuted');
  }
  if (current.hold) current = settleHoldInTxn(store, current, now);
  return current;
}
