// The hold rules of the alert policies (domain/status.ts, alert-policies §4,
// §5) applied inside write transactions: finding out what may hold a check's
// notifications (maintenance windows, the checks it depends on), deciding a
// new flip, and settling a hold, with the events that tell of it.
import { holdFlip, nearestDownParent, notifyEvent, settleHold, type HoldFacts } from '../domain/status.js';
import { inMaintenance } from '../domain/maintenance.js';
import type { CheckRecord, FlipRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { ReleaseInfo } from '../store/events.js';

/** Inside a transaction: what may hold `check`'s notifications at `now`. */
export function holdFactsOf(store: Store, check: CheckRecord, now: number): HoldFacts {
  return {
    inMaintenance: inMaintenance(check, store.listWindows(check.projectId), now),
    downParent: check.dependsOn === undefined ? null : nearestDownParent(check, (uuid) => store.getCheck(uuid)),
  };
}

/** Inside a transaction: a new flip of `before` (now `after`) decided under the hold rules. */
export function decideFlip(store: Store, before: CheckRecord, after: CheckRecord, flip: FlipRecord, now: number): { check: CheckRecord; flip: FlipRecord } {
  return holdFlip(before, after, flip, holdFactsOf(store, after, now), now);
}

/**
 * Inside a transaction: look at `check`'s hold again and store what changes,
 * with its event (`hold.changed`, or `notification.released` carrying the
 * flip of the status told). Returns the check as it is now.
 */
export function settleHoldInTxn(store: Store, check: CheckRecord, now: number): CheckRecord {
  const release = settleHold(check, holdFactsOf(store, check, now), now);
  if (!release) return check;
  if (!release.ended) {
    store.savePolicyEventInTxn(release.check, now, 'hold.changed');
    return release.check;
  }
  const parent = check.hold?.parent;
  // What is told is the flip that set the current status, as a flip told now
  // would be; one that alerts nobody (a first ping after a resume) tells nothing.
  const newest = release.event === null ? undefined : store.listFlips(check.uuid)[0];
  const flip = newest && asTold(newest);
  if (newest && flip && notifyEvent(flip) === release.event) {
    const info: ReleaseInfo = { event: release.event, cause: release.cause, flipRev: newest.rev };
    if (parent) info.parent = parent;
    store.savePolicyEventInTxn(release.check, now, 'notification.released', { flip, release: info });
  } else {
    store.savePolicyEventInTxn(release.check, now, 'notification.released', { release: { event: null, cause: release.cause } });
  }
  return release.check;
}

/** A stored flip as a release tells it: without its revision and its held mark. */
function asTold({ rev: _rev, held: _held, ...flip }: FlipRecord & { rev: number }): FlipRecord {
  return flip;
}
