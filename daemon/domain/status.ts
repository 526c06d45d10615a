// Every rule about a check's status lives here (status-machine.md): the derived
// times E / G / D, the display status, the effect of each ping signal, pause and
// resume, and the background evaluator's "going down" step. Pure functions:
// the caller passes `now` and persists what comes back; inputs are never mutated.
import { nextFireAfter } from './schedule/index.js';
import type {
  ApiVersion,
  CheckRecord,
  DisplayStatus,
  DisplayStatusV2,
  FlipRecord,
  HoldCause,
  NotificationHold,
  PingKind,
  StoredStatus,
} from './types.js';

const SECOND = 1000;

/**
 * E, the expected time of the next success or fail signal (§2.1), or null for ∞.
 * Only an `up` check expects anything; new, paused and down checks wait forever.
 */
export function expectedNext(check: CheckRecord): number | null {
  if (check.status !== 'up' || check.lastPing === null) return null;
  if (check.kind === 'simple') return check.lastPing + check.timeout * SECOND;
  return nextFireAfter(check.kind, check.schedule, check.tz, check.lastPing);
}

/**
 * G, the grace start, exposed by the API as `next_ping` (§2.2). A running job
 * pulls it back to the start time, except on a down check, which expects nothing.
 */
export function graceStart(check: CheckRecord): number | null {
  const expected = expectedNext(check);
  if (check.lastStart === null || check.status === 'down') return expected;
  return expected === null ? check.lastStart : Math.min(expected, check.lastStart);
}

/**
 * Seconds a started run may take before the check goes down: grace upstream
 * (§2.3), the check's max_duration when it has one (alert-policies §1).
 */
export function runLimit(check: Pick<CheckRecord, 'grace' | 'maxDuration'>): number {
  return check.maxDuration ? check.maxDuration : check.grace;
}

/**
 * D (§2.3): the instant the check goes down by itself, or null for never.
 * Upstream's G + grace is min(E + grace, last_start + grace); a run limit of
 * its own replaces the second grace (alert-policies §1).
 */
export function goingDownAfter(check: CheckRecord): number | null {
  const expected = expectedNext(check);
  const late = expected === null ? null : expected + check.grace * SECOND;
  if (check.lastStart === null || check.status === 'down') return late;
  const overrun = check.lastStart + runLimit(check) * SECOND;
  return late === null ? overrun : Math.min(late, overrun);
}

/** The API `started` field: a start signal is outstanding, even on a down check. */
export function isStarted(check: CheckRecord): boolean {
  return check.lastStart !== null;
}

/**
 * What the display status at an instant depends on (§3): the stored status,
 * E, the grace and an outstanding start. The daemon derives it from a stored
 * check (statusInputsOf); checktop receives exactly these fields over gRPC.
 */
export interface StatusInputs {
  status: StoredStatus;
  /** E (expectedNext), null for ∞. */
  expected: number | null;
  /** Grace in seconds. */
  grace: number;
  /** The outstanding start signal, null when none. */
  lastStart: number | null;
  /** Seconds a run may take (runLimit); absent: the grace. */
  runLimit?: number;
}

export function statusInputsOf(check: CheckRecord): StatusInputs {
  const inputs: StatusInputs = { status: check.status, expected: expectedNext(check), grace: check.grace, lastStart: check.lastStart };
  if (check.maxDuration) inputs.runLimit = check.maxDuration;
  return inputs;
}

/** Rule 1: a run that outlived its limit (grace, or max_duration) is down whatever the stored status says. */
function runOverdue(s: StatusInputs, now: number): boolean {
  return s.lastStart !== null && now >= s.lastStart + (s.runLimit ?? s.grace) * SECOND;
}

/** The display status at `now` in API v2 and v3 terms (§3). Read-time only: never stored. */
export function statusAt(s: StatusInputs, now: number): DisplayStatusV2 {
  if (runOverdue(s, now)) return 'down';
  if (s.status !== 'up') return s.status;
  // Rules 4–6 use E, not G: a running job does not move the last completed run's deadlines.
  if (s.expected === null) return 'up';
  if (now >= s.expected + s.grace * SECOND) return 'down';
  if (now >= s.expected) return 'grace';
  return 'up';
}

/**
 * The first instant after `at` at which statusAt may answer differently: the
 * thresholds it compares `now` with (the end of a run's grace, E, the end of
 * grace) that still lie ahead; Infinity when none does.
 */
export function nextStatusChange(s: StatusInputs, at: number): number {
  const grace = s.grace * SECOND;
  let next = Infinity;
  const consider = (t: number) => {
    if (t > at && t < next) next = t;
  };
  if (s.lastStart !== null) consider(s.lastStart + (s.runLimit ?? s.grace) * SECOND);
  if (s.status === 'up' && s.expected !== null) {
    consider(s.expected);
    consider(s.expected + grace);
  }
  return next;
}

/**
 * The instant statusAt turns down by itself: the end of a running job's grace
 * (rule 1) or E + grace, whichever comes first; null when the check is down
 * already or waits for a ping without a deadline. The same instant as
 * goingDownAfter, from the inputs a client receives.
 */
export function downAt(s: StatusInputs): number | null {
  if (s.status === 'down') return null;
  const grace = s.grace * SECOND;
  const run = s.lastStart !== null ? s.lastStart + grace : Infinity;
  const expected = s.status === 'up' && s.expected !== null ? s.expected + grace : Infinity;
  const at = Math.min(run, expected);
  return at === Infinity ? null : at;
}

/** The API `status` field at `now` (§3). Read-time only: never stored. */
export function displayStatus(check: CheckRecord, now: number, version: ApiVersion): DisplayStatus {
  const inputs = statusInputsOf(check);
  // v1 reports a run in progress as `started`, once rule 1 has had its say.
  if (version === 1 && check.lastStart !== null && !runOverdue(inputs, now)) return 'started';
  return statusAt(inputs, now);
}

// ---------------------------------------------------------------------------
// Flips

/** A flip record for a change of stored status at `created`. */
function flipOf(
  created: number,
  oldStatus: StoredStatus,
  newStatus: StoredStatus,
  reason: FlipRecord['reason'],
  processed: boolean,
): FlipRecord {
  return { created, oldStatus, newStatus, reason, processed };
}

/**
 * The alert event a flip raises (§9): "down" for any change to down, "up" only
 * for down→up. new→up and paused→up are recorded but alert nobody, and flips
 * stored as processed (pause, resume) are never queued at all.
 */
export function notifyEvent(flip: FlipRecord): 'up' | 'down' | null {
  // A held flip (alert-policies §4, §5) is told later, if still true, by a release.
  if (flip.processed || flip.held) return null;
  return flipEvent(flip);
}

/** The event a flip stands for, whether or not anybody is told of it now. */
function flipEvent(flip: FlipRecord): 'up' | 'down' | null {
  if (flip.newStatus === 'down') return 'down';
  if (flip.newStatus === 'up' && flip.oldStatus === 'down') return 'up';
  return null;
}

/** Whether a flip must be delivered to the check's integrations. */
export function shouldNotify(flip: FlipRecord): boolean {
  return notifyEvent(flip) !== null;
}

// ---------------------------------------------------------------------------
// Signals (§6)

export interface Signal {
  kind: PingKind;
  /** The ping's run id, null when the request carried none. */
  rid: string | null;
  now: number;
}

export interface SignalResult {
  check: CheckRecord;
  /** Present when the stored status changed; queue it for notification. */
  flip: FlipRecord | null;
  /**
   * The kind actually applied, which is what the ping must be recorded as.
   * Differs from the signal only when a paused, manual-resume check turned it into `ign`.
   */
  kind: PingKind;
}

/**
 * Ping kind after the paused + manual_resume override (ping-protocol §6 step 5).
 * It reads the stored status, so it belongs inside the atomic update; applySignal
 * applies it itself, which makes it safe to classify outside the transaction.
 */
export function effectiveKind(check: Pick<CheckRecord, 'status' | 'manualResume'>, kind: PingKind): PingKind {
  return check.status === 'paused' && check.manualResume ? 'ign' : kind;
}

/** Apply one accepted ping to the check (§6). Every kind counts and recomputes alert_after. */
export function applySignal(check: CheckRecord, signal: Signal): SignalResult {
  const kind = effectiveKind(check, signal.kind);
  const { rid, now } = signal;
  // The channel list is shared, not copied: no record is changed in place once
  // made, and this runs for every ping.
  const next: CheckRecord = { ...check, nPings: check.nPings + 1 };
  let flip: FlipRecord | null = null;

  if (kind === 'start') {
    next.everStarted = true;
    // A second start overwrites the first: only the most recent run is timed.
    next.lastStart = now;
    next.lastStartRid = rid;
  } else if (kind === 'success' || kind === 'fail') {
    next.lastPing = now;
    next.lastDuration = null;
    if (check.lastStart !== null) {
      const sameRun = rid === check.lastStartRid;
      if (sameRun) next.lastDuration = now - check.lastStart;
      // A success with a different, non-null rid belongs to another run, so the
      // started one stays in flight; anything else ends it.
      const otherRunStillGoing = kind === 'success' && !sameRun && rid !== null;
      if (!otherRunStillGoing) endRun(next);
    }
    const failures = countFailures(next, kind);
    const target: StoredStatus = kind === 'success' ? 'up' : 'down';
    if (kind === 'fail' && tolerated(check)) {
      // The job did run: last_ping has moved, the status stays up.
    } else if (check.status !== target) {
      flip = flipOf(now, check.status, target, kind === 'fail' ? 'fail' : '', false);
      // The count says why, when a tolerance held the earlier failures back.
      if (kind === 'fail' && check.status === 'up' && failures > 0) flip.failures = failures;
      next.status = target;
    }
  }
  // log and ign change nothing but the counter and the deadline.

  next.alertAfter = goingDownAfter(next);
  return { check: next, flip, kind };
}

/**
 * A fail signal on an up check whose failure_tolerance has room for one more
 * consecutive failure (alert-policies §2): stored, but no flip. New and
 * paused checks are not tolerant, and missed deadlines are not failures.
 */
function tolerated(check: CheckRecord): boolean {
  return check.status === 'up' && (check.consecutiveFailures ?? 0) < (check.failureTolerance ?? 0);
}

/**
 * Keep `consecutive_failures` of a check with a failure tolerance: a success
 * resets it, a fail adds one (start, log and ign leave it). Returns the count
 * after this signal; a check without a tolerance never counts.
 */
function countFailures(next: CheckRecord, kind: 'success' | 'fail'): number {
  if (!next.failureTolerance) return 0;
  if (kind === 'success') {
    delete next.consecutiveFailures;
    return 0;
  }
  next.consecutiveFailures = (next.consecutiveFailures ?? 0) + 1;
  return next.consecutiveFailures;
}

function endRun(check: CheckRecord): void {
  check.lastStart = null;
  // The rid only means something while a run is open; clearing it keeps the pair consistent.
  check.lastStartRid = null;
}

// ---------------------------------------------------------------------------
// Pause, resume, update (§7)

export interface TransitionResult {
  check: CheckRecord;
  flip: FlipRecord | null;
  /** False when the operation was a no-op (pause on an already paused check). */
  changed: boolean;
  /** True when the operation is refused: resume on a check that is not paused (409 `check is not paused`). */
  conflict: boolean;
}

/**
 * Pause (§7). Pausing a paused check changes nothing, not even last_start, and
 * answers 200. The flip is stored already processed so it never alerts.
 */
export function applyPause(check: CheckRecord, now: number): TransitionResult {
  if (check.status === 'paused') return { check, flip: null, changed: false, conflict: false };
  const next: CheckRecord = { ...check, channels: [...check.channels], status: 'paused', alertAfter: null };
  endRun(next);
  // A paused check is reminded of nothing (alert-policies §3).
  delete next.downAlert;
  return { check: next, flip: flipOf(now, check.status, 'paused', '', true), changed: true, conflict: false };
}

/**
 * Resume (§7): back to `new` with no last ping, so the check waits for a first
 * ping again. Uses the stored status: a paused check whose start timed out
 * displays down yet can still be resumed.
 */
export function applyResume(check: CheckRecord, now: number): TransitionResult {
  if (check.status !== 'paused') return { check, flip: null, changed: false, conflict: true };
  const next: CheckRecord = {
    ...check,
    channels: [...check.channels],
    status: 'new',
    lastPing: null,
    alertAfter: null,
  };
  endRun(next);
  return { check: next, flip: flipOf(now, 'paused', 'new', '', true), changed: true, conflict: false };
}

/** After an API create or update: the stored status stays, only the deadline follows the new settings. */
export function recomputeAfterUpdate(check: CheckRecord): CheckRecord {
  return { ...check, channels: [...check.channels], alertAfter: goingDownAfter(check) };
}

// ---------------------------------------------------------------------------
// The background evaluator (§4)

export interface DeadlineResult {
  check: CheckRecord;
  /** The timeout flip when the check went down; null when only the deadline moved. */
  flip: FlipRecord | null;
}

/** Whether the evaluator has business with this check at `now`. */
export function deadlineDue(check: CheckRecord, now: number): boolean {
  // Upstream polls `alert_after < now`; checkd fires timers at the deadline itself,
  // and at that very instant the display status is already down (rules 1 and 5 use >=).
  return check.status !== 'down' && check.alertAfter !== null && now >= check.alertAfter;
}

/**
 * One evaluator step for a check whose deadline has come. Returns null when
 * there is nothing to do, the check with a refreshed deadline when it is not
 * down yet (in grace, or the deadline was stale), or the down check plus a
 * `timeout` flip timestamped with the exact deadline D, not the detection time.
 * Call it on the freshly read check inside the same transaction that saves the
 * result, so a ping that just landed is never overtaken by a stale down flip.
 */
export function evaluateDeadline(check: CheckRecord, now: number): DeadlineResult | null {
  if (!deadlineDue(check, now)) return null;
  if (displayStatus(check, now, 2) !== 'down') {
    return { check: recomputeAfterUpdate(check), flip: null };
  }
  // D from the pre-change state. Display "down" implies D <= now, so it is set;
  // the fallback only satisfies the type checker.
  const deadline = goingDownAfter(check) ?? now;
  const next: CheckRecord = { ...check, channels: [...check.channels], status: 'down', alertAfter: null };
  return { check: next, flip: flipOf(deadline, check.status, 'down', downReason(check, deadline), false) };
}

/** Why a check goes down at its deadline: its run hit max_duration (alert-policies §1), or it was late. */
function downReason(check: CheckRecord, deadline: number): FlipRecord['reason'] {
  const overran = check.maxDuration && check.lastStart !== null && deadline === check.lastStart + check.maxDuration * SECOND;
  return overran ? 'duration' : 'timeout';
}

// ---------------------------------------------------------------------------
// Holds: muting and maintenance (alert-policies §4), dependencies (§5)
//
// While something holds a check's notifications, its flips are recorded as
// always but not told; the check keeps `hold.told`, the status its channels
// were last told of. When the hold ends, one notification of the current
// status is released if it differs from that, and nothing otherwise: nobody
// misses an outage that outlasts the hold, nobody hears of one that healed
// inside it.

/** What may hold a check's notifications at an instant, as the caller found it out. */
export interface HoldFacts {
  /** An open maintenance window of the project matches the check's tags. */
  inMaintenance: boolean;
  /** The nearest down check it depends on, directly or through the chain; null if none. */
  downParent: string | null;
}

export const NO_HOLD_FACTS: HoldFacts = { inMaintenance: false, downParent: null };

/** Whether the check is muted at `now` (§4.1). */
export function isMuted(check: CheckRecord, now: number): boolean {
  return check.mutedUntil !== undefined && now < check.mutedUntil;
}

/**
 * What holds the check's notifications at `now`, or null: a mute, an open
 * maintenance window, or (only while it is down) a down check it depends on.
 */
export function holdCause(check: CheckRecord, facts: HoldFacts, now: number): HoldCause | null {
  if (isMuted(check, now)) return 'mute';
  if (facts.inMaintenance) return 'maintenance';
  if (check.status === 'down' && facts.downParent !== null) return 'dependency';
  return null;
}

/** The status a check's channels were last told of: the hold keeps it; without one they know the stored status. */
function toldOf(check: CheckRecord): 'up' | 'down' {
  return check.hold?.told ?? (check.status === 'down' ? 'down' : 'up');
}

function holdOf(told: 'up' | 'down', cause: HoldCause, check: CheckRecord, facts: HoldFacts): NotificationHold {
  const hold: NotificationHold = { told, cause };
  if (check.status === 'down' && facts.downParent !== null) hold.parent = facts.downParent;
  return hold;
}

/**
 * A flip under the hold rules, decided in the transaction that records it:
 * told now (the flip as it is, any hold gone), or held (the flip marked
 * `held`, the check keeping what its channels were told). A flip whose event
 * the channels already believe (a held outage that healed) is held too: there
 * is nothing to tell. `before` is the check before the flip, `after` with it.
 */
export function holdFlip(before: CheckRecord, after: CheckRecord, flip: FlipRecord, facts: HoldFacts, now: number): { check: CheckRecord; flip: FlipRecord } {
  const event = flip.processed ? null : flipEvent(flip);
  if (event === null) return { check: after, flip };
  const told = toldOf(before);
  const cause = holdCause(after, facts, now) ?? (event === told ? before.hold?.cause : undefined);
  const next: CheckRecord = { ...after };
  // Reminders repeat the down notification of this outage only, once it is told (§3).
  delete next.downAlert;
  if (cause === undefined) {
    delete next.hold;
    if (event === 'down') next.downAlert = { at: now, sent: {} };
    return { check: next, flip };
  }
  next.hold = holdOf(told, cause, after, facts);
  return { check: next, flip: { ...flip, held: cause } };
}

export interface Release {
  /** The check with its hold ended, or carried on with its cause or parent brought up to date. */
  check: CheckRecord;
  /** Whether the hold ended (false: it goes on, for another cause or parent). */
  ended: boolean;
  /** What the channels are told now: the current status if it differs from what they were told; null for nothing. */
  event: 'up' | 'down' | null;
  /** What held the notifications (the hold that ended). */
  cause: HoldCause;
}

/**
 * Look at a held check again (a mute ended, a window closed, a parent came
 * up, or the daemon started): null when nothing changes; otherwise the hold
 * goes on (for another cause, or another parent: `ended` false) or ends, and
 * releases the current status if the channels were told otherwise. A new or
 * paused check releases nothing: there is no outage or recovery to tell of.
 */
export function settleHold(check: CheckRecord, facts: HoldFacts, now: number): Release | null {
  const hold = check.hold;
  if (!hold) return null;
  const cause = holdCause(check, facts, now);
  if (cause !== null) {
    const again = holdOf(hold.told, cause, check, facts);
    if (again.cause === hold.cause && again.parent === hold.parent) return null;
    return { check: { ...check, hold: again }, ended: false, event: null, cause: hold.cause };
  }
  const next: CheckRecord = { ...check };
  delete next.hold;
  const current = check.status === 'down' ? 'down' : check.status === 'up' ? 'up' : null;
  const event = current !== null && current !== hold.told ? current : null;
  if (event === 'down') next.downAlert = { at: now, sent: {} };
  return { check: next, ended: true, event, cause: hold.cause };
}

/** Links of a dependency chain followed at most (a longer one is cut there). */
const MAX_CHAIN = 100;

/**
 * The nearest down check that `check` depends on, directly or through the
 * chain (§5), or null; `lookup` reads a check by uuid. A chain that loops
 * (never stored: updates refuse cycles) ends where it comes back.
 */
export function nearestDownParent(check: CheckRecord, lookup: (uuid: string) => CheckRecord | undefined): string | null {
  const seen = new Set([check.uuid]);
  for (let uuid = check.dependsOn, n = 0; uuid !== undefined && !seen.has(uuid) && n < MAX_CHAIN; n++) {
    const parent = lookup(uuid);
    if (!parent) return null;
    if (parent.status === 'down') return parent.uuid;
    seen.add(uuid);
    uuid = parent.dependsOn;
  }
  return null;
}

/** Whether making `uuid` depend on `target` closes a loop: the chain from `target` comes back to it (§5). */
export function makesDependencyCycle(uuid: string, target: string, lookup: (uuid: string) => CheckRecord | undefined): boolean {
  const seen = new Set<string>();
  for (let at: string | undefined = target; at !== undefined && !seen.has(at); at = lookup(at)?.dependsOn) {
    if (at === uuid) return true;
    seen.add(at);
  }
  return false;
}

/** Mute until `until` (§4.1): replaces an earlier mute. Pings, status and flips go on as always. */
export function applyMute(check: CheckRecord, until: number): CheckRecord {
  return { ...check, mutedUntil: until };
}

/** End a mute (the unmute API, or its time reached); the caller settles the hold it may leave. Null when not muted. */
export function applyUnmute(check: CheckRecord): CheckRecord | null {
  if (check.mutedUntil === undefined) return null;
  const next: CheckRecord = { ...check };
  delete next.mutedUntil;
  return next;
}

