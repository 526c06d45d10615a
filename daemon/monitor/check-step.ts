// One monitor step for a check whose time has come, inside the monitor's
// write transaction: the deadline (status-machine §4; alert-policies §1), the
// end of a mute (§4.1) and the hold it may leave (§4, §5), and the reminders
// due (§3). Each change is stored with its event.
import { applyUnmute, evaluateDeadline, isMuted, notifyEvent } from '../domain/status.js';
import { dueReminders, markReminded, nextReminderAt, repeatingChannels } from '../domain/reminders.js';
import { inMaintenance, windowCloses, windowCovers } from '../domain/maintenance.js';
import { decideFlip, settleHoldInTxn } from '../service/holds.js';
import type { CheckRecord, FlipRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../shared/log.js';

/**
 * When the monitor must look at the check next: its deadline, the end of its
 * mute, or its next reminder; null for never.
 */
export function wakeAt(store: Store, check: CheckRecord): number | null {
  let at = check.alertAfter;
  const consider = (t: number | null | undefined) => {
    if (t !== null && t !== undefined && (at === null || t < at)) at = t;
  };
  consider(check.mutedUntil);
  // Only a down check that was told so has reminders: the channels are read for it alone.
  if (check.status === 'down' && check.downAlert) consider(nextReminderAt(check, repeatingChannels(check, (id) => store.getChannel(id))));
  return at;
}

export interface Step {
  /** The check as stored after the step. */
  check: CheckRecord;
  /** When to look at it next; null for never. */
  wake: number | null;
}

export function stepCheck(store: Store, check: CheckRecord, now: number, logger: Logger): Step {
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
  let quietUntil: number | null = null;
  if (current.status === 'down' && current.downAlert) {
    quietUntil = remindLater(store, current, now);
    if (quietUntil === null) current = remind(store, current, now);
  }
  const wake = wakeAt(store, current);
  // Reminders wait for the end of a mute (in the wake already) or of a maintenance window.
  return { check: current, wake: quietUntil !== null && wake !== null && wake <= now ? quietUntil : wake };
}

/** While muted or in maintenance no reminder goes out: until when (the window's close, for maintenance); null when free. */
function remindLater(store: Store, check: CheckRecord, now: number): number | null {
  if (isMuted(check, now)) return check.mutedUntil!;
  const windows = store.listWindows(check.projectId);
  if (!inMaintenance(check, windows, now)) return null;
  let until = now;
  for (const w of windows) if (windowCovers(w, check)) until = Math.max(until, windowCloses(w, now) ?? now);
  return until;
}

/** Send the reminders due now, if any: the check's counts move in the transaction that appends their event. */
function remind(store: Store, check: CheckRecord, now: number): CheckRecord {
  const due = dueReminders(check, repeatingChannels(check, (id) => store.getChannel(id)), now);
  if (due.length === 0) return check;
  const newest = store.listFlips(check.uuid)[0];
  if (!newest || newest.newStatus !== 'down') return check;
  const { rev: _rev, held: _held, ...flip } = newest;
  if (notifyEvent(flip as FlipRecord) !== 'down') return check;
  const next = markReminded(check, due);
  store.savePolicyEventInTxn(next, now, 'reminder.due', { flip, reminders: due });
  return next;
}
